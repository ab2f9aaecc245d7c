package io.leasehold.bench.report;

import io.leasehold.bench.load.StallResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * The owner-stall runs of every path: the other owners' partitions' throughput while one owner
 * was stopped, against before, per run; summarised as median and range over the rounds.
 *
 * @param description what was stopped and for how long, for the table's heading
 */
public record StallComparison(String description, List<Run> runs) {

    /** One path's run in one round: its result, or why it failed. */
    public record Run(Target target, int round, StallResult result, String failure) {
    }

    public StallComparison {
        runs = List.copyOf(runs);
    }

    public static StallComparison of(String description) {
        return new StallComparison(description, new ArrayList<>());
    }

    public StallComparison with(Run run) {
        List<Run> all = new ArrayList<>(runs);
        all.add(run);
        return new StallComparison(description, all);
    }

    /** The Markdown table: one row per path. */
    public String table() {
        StringBuilder out = new StringBuilder();
        out.append("| path | produce rec/s before | produce rec/s during | produce kept | consume rec/s before "
                + "| consume rec/s during | consume kept | stopped owner's partitions, produce rec/s during | errors |\n");
        out.append("|---|---|---|---|---|---|---|---|---|\n");
        for (Target target : runs.stream().map(Run::target).distinct().sorted().toList()) {
            List<StallResult> results = runs.stream().filter(r -> r.target() == target && r.result() != null)
                    .map(Run::result).toList();
            out.append("| ").append(target.label())
                    .append(" | ").append(spread(results, StallResult::produceBefore, "%.0f"))
                    .append(" | ").append(spread(results, StallResult::produceDuring, "%.0f"))
                    .append(" | ").append(spread(results, StallResult::produceKept, "%.2f"))
                    .append(" | ").append(spread(results, StallResult::consumeBefore, "%.0f"))
                    .append(" | ").append(spread(results, StallResult::consumeDuring, "%.0f"))
                    .append(" | ").append(spread(results, StallResult::consumeKept, "%.2f"))
                    .append(" | ").append(spread(results, StallResult::stalledOwnerProduceDuring, "%.0f"))
                    .append(" | ").append(results.stream().mapToLong(StallResult::errors).sum())
                    .append(" |\n");
        }
        return out.toString();
    }

    /** Failed runs and runs with failed sends, one line each. */
    public String failures() {
        StringBuilder out = new StringBuilder();
        for (Run run : runs) {
            String name = String.format(Locale.ROOT, "- owner stall, %s, round %d: ", run.target().label(), run.round());
            if (run.result() == null) {
                out.append(name).append(run.failure()).append('\n');
            } else if (run.result().errors() > 0) {
                out.append(name).append(run.result().errors()).append(" sends failed, first: ")
                        .append(run.result().firstError()).append('\n');
            }
        }
        return out.toString();
    }

    private static String spread(List<StallResult> results, ToDoubleFunction<StallResult> figure, String format) {
        return Spread.of(results.stream().map(figure::applyAsDouble).toList()).format(format);
    }
}
