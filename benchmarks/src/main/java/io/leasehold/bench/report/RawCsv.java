package io.leasehold.bench.report;

import java.util.List;
import java.util.Locale;

/**
 * Every individual run as CSV, so the summary tables can be re-derived or checked; with each
 * run's payload bytes (all acknowledged, window or not), the divisor of the per-GB CPU figures.
 */
public final class RawCsv {

    private RawCsv() {
    }

    public static String of(List<Comparison> comparisons) {
        StringBuilder out = new StringBuilder(
                "suite,kind,workload,target,round,mb_per_s,records_per_s,p50_ms,p99_ms,p999_ms,errors,proxy_cpu_s,proxy_rss_mib,broker_cpu_s,machine_busy_s,machine_total_s,payload_bytes,failure\n");
        for (Comparison c : comparisons) {
            for (Measurement m : c.measurements()) {
                out.append(c.suite()).append(',').append(c.kind()).append(",\"").append(c.label()).append("\",")
                        .append(m.target().label()).append(',').append(m.round()).append(',');
                if (m.succeeded()) {
                    out.append(String.format(Locale.ROOT, "%.2f,%.0f,%.3f,%.3f,%.3f,%d,%.2f,%.0f,%.2f,%.2f,%.2f,%d,",
                            m.result().megabytesPerSecond(), m.result().recordsPerSecond(),
                            m.result().latencyMillis(50), m.result().latencyMillis(99), m.result().latencyMillis(99.9),
                            m.result().errors(), m.proxyCpuSeconds(), m.proxyRssBytes() / 1048576.0,
                            m.brokerCpuSeconds(), m.machineCpu().busySeconds(), m.machineCpu().totalSeconds(),
                            m.result().totalPayloadBytes()));
                    if (m.result().firstError() != null) {
                        out.append('"').append(m.result().firstError().replace('"', '\'')).append('"');
                    }
                } else {
                    out.append(",,,,,,,,,,,,\"").append(m.failure().replace('"', '\'')).append('"');
                }
                out.append('\n');
            }
        }
        return out.toString();
    }
}
