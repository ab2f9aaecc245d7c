package io.leasehold.bench;

import io.leasehold.bench.load.Timing;
import io.leasehold.bench.suite.Plan;
import io.leasehold.bench.suite.ProduceCase;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Changes to a plan asked for on the command line; a null field keeps the plan's own.
 *
 * @param rounds      rounds of every configuration
 * @param window      the measured window of each run (its 1 s warm-up stays)
 * @param produceCase keep only the produce cases whose label contains this text
 */
record PlanTuning(Integer rounds, Duration window, String produceCase) {

    /** Throws IllegalArgumentException when the case text matches none of {@code plan}'s produce cases. */
    void requireCaseIn(Plan plan) {
        if (produceCase != null && matching(plan.scaling()).isEmpty() && matching(plan.produce()).isEmpty()) {
            throw new IllegalArgumentException("--case \"" + produceCase + "\" matches none of the produce cases: "
                    + Stream.concat(plan.scaling().stream(), plan.produce().stream()).map(ProduceCase::label)
                            .collect(Collectors.joining("; ")));
        }
    }

    /** {@code plan} with these changes. */
    Plan apply(Plan plan) {
        return new Plan(rounds != null ? rounds : plan.rounds(),
                window != null ? new Timing(plan.timing().warmup(), window) : plan.timing(),
                matching(plan.scaling()), matching(plan.produce()), matching(plan.halfSaturation()), plan.consume(),
                plan.consumeRecordSize(), plan.consumeBytes(), plan.consumeTimeLimit(), plan.partitions(), plan.producerBuffer(), plan.stall());
    }

    private List<ProduceCase> matching(List<ProduceCase> cases) {
        return produceCase == null ? cases : cases.stream().filter(c -> c.label().contains(produceCase)).toList();
    }
}
