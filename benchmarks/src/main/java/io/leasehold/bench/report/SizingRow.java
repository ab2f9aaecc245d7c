package io.leasehold.bench.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One measured cell of the sizing run, as one line of its CSV. Figures that do not apply to a
 * kind of cell are NaN, written as empty fields.
 *
 * <ul>
 * <li>{@code produce} and {@code consume}: one proxy ({@code mode}: plaintext, TLS or SASL) at a
 *     target rate; its CPU over the measured run, the payload that run moved, its resident
 *     memory at the end, the rate reached inside the measured window and failed records.</li>
 * <li>{@code latency}: a light produce load straight to the broker ({@code mode} direct) or
 *     through the plaintext proxy; p50 and p99 in milliseconds.</li>
 * <li>{@code idle}: resident memory and heap used after a full GC of the plaintext proxy before
 *     and after {@code connections} idle client connections were opened.</li>
 * </ul>
 *
 * @param loadAverage the machine's 1, 5 and 15 minute load averages when the cell ended
 */
public record SizingRow(String kind, String mode, String acks, double targetMegabytesPerSecond,
        double achievedMegabytesPerSecond, double proxyCpuSeconds, double wallSeconds, double payloadMegabytes,
        double rssMebibytes, double p50Millis, double p99Millis, long errors, int connections,
        double rssBeforeMebibytes, double rssAfterMebibytes, double heapBeforeMebibytes, double heapAfterMebibytes,
        String loadAverage) {

    /** A reached rate of at least this share of the target counts as reached. */
    static final double REACHED = 0.95;

    public static final String HEADER = "kind,mode,acks,target_mb_s,achieved_mb_s,proxy_cpu_s,wall_s,payload_mb,rss_mib,"
            + "p50_ms,p99_ms,errors,connections,rss_before_mib,rss_after_mib,heap_before_mib,heap_after_mib,load_average";

    /** A produce or consume cell. */
    public static SizingRow throughput(String kind, String mode, String acks, double target, double achieved,
            double cpuSeconds, double wallSeconds, double payloadMegabytes, double rssMebibytes, long errors,
            String loadAverage) {
        return new SizingRow(kind, mode, acks, target, achieved, cpuSeconds, wallSeconds, payloadMegabytes,
                rssMebibytes, Double.NaN, Double.NaN, errors, 0, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                loadAverage);
    }

    /** A light-load latency cell. */
    public static SizingRow latency(String mode, double achieved, double p50Millis, double p99Millis, long errors,
            String loadAverage) {
        return new SizingRow("latency", mode, "all", Double.NaN, achieved, Double.NaN, Double.NaN, Double.NaN,
                Double.NaN, p50Millis, p99Millis, errors, 0, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                loadAverage);
    }

    /** The idle-connection cell. */
    public static SizingRow idle(String mode, int connections, double rssBefore, double rssAfter, double heapBefore,
            double heapAfter, String loadAverage) {
        return new SizingRow("idle", mode, "", Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                Double.NaN, Double.NaN, Double.NaN, 0, connections, rssBefore, rssAfter, heapBefore, heapAfter,
                loadAverage);
    }

    /**
     * Proxy CPU per unit of traffic: (CPU s ÷ wall s × 1000) ÷ (MB ÷ wall s), which is CPU
     * milliseconds per MB moved, the wall time cancelling out.
     */
    public double millicoresPerMegabytePerSecond() {
        return proxyCpuSeconds * 1000 / payloadMegabytes;
    }

    /** Whether the measured window reached {@value #REACHED} of the target rate. */
    public boolean rateReached() {
        return achievedMegabytesPerSecond >= REACHED * targetMegabytesPerSecond;
    }

    /** This row as one CSV line (no line break); load averages are space-separated, so no field is quoted. */
    public String toCsv() {
        return String.join(",", kind, mode, acks, number(targetMegabytesPerSecond), number(achievedMegabytesPerSecond),
                number(proxyCpuSeconds), number(wallSeconds), number(payloadMegabytes), number(rssMebibytes),
                number(p50Millis), number(p99Millis), Long.toString(errors), Integer.toString(connections),
                number(rssBeforeMebibytes), number(rssAfterMebibytes), number(heapBeforeMebibytes),
                number(heapAfterMebibytes), loadAverage);
    }

    /** Reads a line written by {@link #toCsv()}. */
    public static SizingRow parse(String line) {
        String[] f = line.split(",", -1);
        if (f.length != HEADER.split(",").length) {
            throw new IllegalArgumentException("a sizing CSV line has " + HEADER.split(",").length + " fields, this has "
                    + f.length + ": " + line);
        }
        return new SizingRow(f[0], f[1], f[2], value(f[3]), value(f[4]), value(f[5]), value(f[6]), value(f[7]),
                value(f[8]), value(f[9]), value(f[10]), Long.parseLong(f[11]), Integer.parseInt(f[12]), value(f[13]),
                value(f[14]), value(f[15]), value(f[16]), f[17]);
    }

    /** The first of the load averages: the one minute average. */
    public double loadAverageOneMinute() {
        try {
            return value(loadAverage.split(" ")[0]);
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }

    /** Every row of a CSV text: the header and {@code #} comment lines are skipped. */
    public static List<SizingRow> parseAll(List<String> lines) {
        List<SizingRow> rows = new ArrayList<>();
        for (String line : lines) {
            if (!line.isBlank() && !line.startsWith("#") && !line.equals(HEADER)) {
                rows.add(parse(line));
            }
        }
        return rows;
    }

    private static String number(double value) {
        return Double.isNaN(value) ? "" : String.format(Locale.ROOT, "%.3f", value);
    }

    private static double value(String field) {
        return field.isEmpty() ? Double.NaN : Double.parseDouble(field);
    }
}
