package io.leasehold.bench.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Renders comparisons as Markdown tables: what the command prints and what results.md holds.
 * Columns are per path ({@link Target#column()}: d = direct, L1 = Leasehold single-node,
 * LN = Leasehold node-per-owner, K = Kroxylicious), for the paths the comparisons were run on.
 */
public final class MarkdownTables {

    private MarkdownTables() {
    }

    /** Throughput on every path, then each proxy against direct and each Leasehold path against Kroxylicious. */
    public static String throughput(List<Comparison> comparisons) {
        List<Target> targets = targets(comparisons);
        List<Target[]> ratios = ratios(targets);
        StringBuilder out = new StringBuilder();
        out.append(header("workload", columns(targets, t -> t.column() + " MB/s"),
                ratios.stream().map(r -> r[0].column() + "/" + r[1].column()).toList()));
        for (Comparison c : comparisons) {
            List<String> cells = new ArrayList<>();
            targets.forEach(t -> cells.add(c.throughput(t).format("%.1f")));
            ratios.forEach(r -> cells.add(c.throughputRatio(r[0], r[1]).format("%.2f")));
            out.append(row(c.label(), cells));
        }
        return out.toString();
    }

    /** Produce latency (medians of the rounds) per path and what each path costs in CPU per GB. */
    public static String produceCost(List<Comparison> comparisons) {
        List<Target> targets = targets(comparisons);
        List<Target> proxies = targets.stream().filter(Target::isProxy).toList();
        StringBuilder out = new StringBuilder();
        out.append(header("workload", columns(targets, t -> t.column() + " p50 / p99 ms"),
                List.of("proxy CPU s/GB " + slash(proxies), "machine CPU s/GB " + slash(targets),
                        "machine busy % " + slash(targets), "errors " + slash(targets))));
        for (Comparison c : comparisons) {
            List<String> cells = new ArrayList<>();
            targets.forEach(t -> cells.add(latencies(c, t)));
            cells.add(joined(proxies, t -> seconds(c.proxyCpuSecondsPerGigabyte(t))));
            cells.add(joined(targets, t -> seconds(c.machineCpuSecondsPerGigabyte(t))));
            cells.add(joined(targets, t -> median(c.machineBusyPercent(t))));
            cells.add(joined(targets, t -> Long.toString(c.errors(t))));
            out.append(row(c.label(), cells));
        }
        return out.toString();
    }

    /** Rate-limited produce runs: absolute latencies on every path and what each proxy adds. */
    public static String latency(List<Comparison> comparisons) {
        List<Target> targets = targets(comparisons);
        List<Target> proxies = targets.stream().filter(Target::isProxy).toList();
        StringBuilder out = new StringBuilder();
        List<String> added = new ArrayList<>();
        proxies.forEach(t -> added.add(t.column() + " added p50 / p99 ms"));
        added.add("errors " + slash(targets));
        out.append(header("workload", columns(targets, t -> t.column() + " p50 / p99 ms"), added));
        for (Comparison c : comparisons) {
            List<String> cells = new ArrayList<>();
            targets.forEach(t -> cells.add(latencies(c, t)));
            proxies.forEach(t -> cells.add(c.addedLatency(t, 50).format("%+.3f") + " / "
                    + c.addedLatency(t, 99).format("%+.3f")));
            cells.add(joined(targets, t -> Long.toString(c.errors(t))));
            out.append(row(c.label(), cells));
        }
        return out.toString();
    }

    /** Consumer runs: what each path costs in CPU per GB fetched. */
    public static String consumeCost(List<Comparison> comparisons) {
        List<Target> targets = targets(comparisons);
        List<Target> proxies = targets.stream().filter(Target::isProxy).toList();
        StringBuilder out = new StringBuilder();
        out.append(header("workload", List.of("proxy CPU s/GB " + slash(proxies), "broker CPU s/GB " + slash(targets),
                "machine CPU s/GB " + slash(targets), "machine busy % " + slash(targets)), List.of()));
        for (Comparison c : comparisons) {
            out.append(row(c.label(), List.of(
                    joined(proxies, t -> seconds(c.proxyCpuSecondsPerGigabyte(t))),
                    joined(targets, t -> seconds(c.brokerCpuSecondsPerGigabyte(t))),
                    joined(targets, t -> seconds(c.machineCpuSecondsPerGigabyte(t))),
                    joined(targets, t -> median(c.machineBusyPercent(t))))));
        }
        return out.toString();
    }

    /**
     * Runs that did not complete, and runs in which records failed, listed so that a missing or
     * flattering figure is never silent.
     */
    public static String failures(List<Comparison> comparisons) {
        StringBuilder out = new StringBuilder();
        for (Comparison c : comparisons) {
            String name = "- " + c.suite() + ' ' + c.kind() + ' ' + c.label() + ", ";
            for (Measurement m : c.measurements()) {
                String run = name + m.target().label() + ", round " + m.round() + ": ";
                if (!m.succeeded()) {
                    out.append(run).append(m.failure()).append('\n');
                } else if (m.result().errors() > 0) {
                    out.append(run).append(m.result().errors()).append(" records failed, first: ")
                            .append(m.result().firstError()).append('\n');
                }
            }
        }
        return out.toString();
    }

    /** Every proxy against direct, then each Leasehold path against Kroxylicious, as {numerator, denominator}. */
    private static List<Target[]> ratios(List<Target> targets) {
        List<Target[]> ratios = new ArrayList<>();
        if (targets.contains(Target.DIRECT)) {
            targets.stream().filter(Target::isProxy).forEach(t -> ratios.add(new Target[] {t, Target.DIRECT}));
        }
        if (targets.contains(Target.KROXYLICIOUS)) {
            targets.stream().filter(t -> t == Target.LEASEHOLD || t == Target.LEASEHOLD_NODES)
                    .forEach(t -> ratios.add(new Target[] {t, Target.KROXYLICIOUS}));
        }
        return ratios;
    }

    private static List<Target> targets(List<Comparison> comparisons) {
        return comparisons.stream().flatMap(c -> c.targets().stream()).distinct().sorted().toList();
    }

    private static List<String> columns(List<Target> targets, Function<Target, String> name) {
        return targets.stream().map(name).toList();
    }

    private static String header(String first, List<String> columns, List<String> more) {
        List<String> all = new ArrayList<>(columns);
        all.addAll(more);
        return row(first, all) + "|---" + "|---".repeat(all.size()) + "|\n";
    }

    private static String row(String first, List<String> cells) {
        return "| " + first + " | " + String.join(" | ", cells) + " |\n";
    }

    private static String slash(List<Target> targets) {
        return targets.stream().map(Target::column).collect(Collectors.joining("/"));
    }

    private static String joined(List<Target> targets, Function<Target, String> cell) {
        return targets.stream().map(cell).collect(Collectors.joining(" / "));
    }

    private static String latencies(Comparison c, Target target) {
        if (c.latency(target, 50).isEmpty()) {
            return "n/a";
        }
        return String.format(Locale.ROOT, "%.2f / %.2f", c.latency(target, 50).median(), c.latency(target, 99).median());
    }

    private static String median(Spread spread) {
        return spread.isEmpty() ? "n/a" : String.format(Locale.ROOT, "%.0f", spread.median());
    }

    private static String seconds(Optional<Double> perGigabyte) {
        return perGigabyte.map(v -> String.format(Locale.ROOT, "%.2f", v)).orElse("n/a");
    }
}
