package io.leasehold.bench.report;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** Renders comparisons as Markdown tables: what the command prints and what results.md holds. */
public final class MarkdownTables {

    private MarkdownTables() {
    }

    /** Produce runs at full speed: throughput ratio, then added latency. */
    public static String produce(List<Comparison> comparisons) {
        StringBuilder out = new StringBuilder();
        out.append("| workload | direct MB/s | proxy MB/s | proxy/direct | direct p50 / p99 / p99.9 ms "
                + "| added p50 ms | added p99 ms | added p99.9 ms | proxy CPU s/GB | broker CPU s/GB d/p "
                + "| machine CPU s/GB d/p | machine busy % d/p | errors d/p |\n");
        out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (Comparison c : comparisons) {
            out.append("| ").append(c.label())
                    .append(" | ").append(c.throughput(Target.DIRECT).format("%.1f"))
                    .append(" | ").append(c.throughput(Target.PROXY).format("%.1f"))
                    .append(" | ").append(c.throughputRatio().format("%.3f"))
                    .append(" | ").append(latencies(c, Target.DIRECT))
                    .append(" | ").append(c.addedLatency(50).format("%+.2f"))
                    .append(" | ").append(c.addedLatency(99).format("%+.2f"))
                    .append(" | ").append(c.addedLatency(99.9).format("%+.2f"))
                    .append(" | ").append(cpu(c))
                    .append(" | ").append(brokerCpu(c))
                    .append(" | ").append(machine(c))
                    .append(" | ").append(c.errors(Target.DIRECT)).append('/').append(c.errors(Target.PROXY))
                    .append(" |\n");
        }
        return out.toString();
    }

    /** Rate-limited produce runs: absolute latencies on both paths and the difference. */
    public static String latency(List<Comparison> comparisons) {
        StringBuilder out = new StringBuilder();
        out.append("| workload | direct p50 / p99 / p99.9 ms | proxy p50 / p99 / p99.9 ms "
                + "| added p50 ms | added p99 ms | added p99.9 ms | errors d/p |\n");
        out.append("|---|---|---|---|---|---|---|\n");
        for (Comparison c : comparisons) {
            out.append("| ").append(c.label())
                    .append(" | ").append(latencies(c, Target.DIRECT))
                    .append(" | ").append(latencies(c, Target.PROXY))
                    .append(" | ").append(c.addedLatency(50).format("%+.3f"))
                    .append(" | ").append(c.addedLatency(99).format("%+.3f"))
                    .append(" | ").append(c.addedLatency(99.9).format("%+.3f"))
                    .append(" | ").append(c.errors(Target.DIRECT)).append('/').append(c.errors(Target.PROXY))
                    .append(" |\n");
        }
        return out.toString();
    }

    /** Consumer fetch throughput. */
    public static String consume(List<Comparison> comparisons) {
        StringBuilder out = new StringBuilder();
        out.append("| workload | direct MB/s | proxy MB/s | proxy/direct | proxy CPU s/GB | broker CPU s/GB d/p "
                + "| machine CPU s/GB d/p | machine busy % d/p |\n");
        out.append("|---|---|---|---|---|---|---|---|\n");
        for (Comparison c : comparisons) {
            out.append("| ").append(c.label())
                    .append(" | ").append(c.throughput(Target.DIRECT).format("%.1f"))
                    .append(" | ").append(c.throughput(Target.PROXY).format("%.1f"))
                    .append(" | ").append(c.throughputRatio().format("%.3f"))
                    .append(" | ").append(cpu(c))
                    .append(" | ").append(brokerCpu(c))
                    .append(" | ").append(machine(c))
                    .append(" |\n");
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

    private static String latencies(Comparison c, Target target) {
        if (c.latency(target, 50).isEmpty()) {
            return "n/a";
        }
        return String.format(Locale.ROOT, "%.2f / %.2f / %.2f", c.latency(target, 50).median(),
                c.latency(target, 99).median(), c.latency(target, 99.9).median());
    }

    private static String brokerCpu(Comparison c) {
        return seconds(c.brokerCpuSecondsPerGigabyte(Target.DIRECT)) + " / "
                + seconds(c.brokerCpuSecondsPerGigabyte(Target.PROXY));
    }

    /** Machine CPU per GB, direct / proxy, then how busy the cores were (medians). */
    private static String machine(Comparison c) {
        return seconds(c.machineCpuSecondsPerGigabyte(Target.DIRECT)) + " / "
                + seconds(c.machineCpuSecondsPerGigabyte(Target.PROXY))
                + " | " + median(c.machineBusyPercent(Target.DIRECT)) + " / " + median(c.machineBusyPercent(Target.PROXY));
    }

    private static String median(Spread spread) {
        return spread.isEmpty() ? "n/a" : String.format(Locale.ROOT, "%.0f", spread.median());
    }

    private static String cpu(Comparison c) {
        return seconds(c.proxyCpuSecondsPerGigabyte());
    }

    private static String seconds(Optional<Double> perGigabyte) {
        return perGigabyte.map(v -> String.format(Locale.ROOT, "%.1f", v)).orElse("n/a");
    }
}
