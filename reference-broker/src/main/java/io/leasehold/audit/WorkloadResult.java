package io.leasehold.audit;

import java.time.Duration;
import java.util.List;

/**
 * Counts of one workload run, from its own producers' callbacks.
 *
 * @param pending sends without an outcome when the producers were closed (outcome unknown)
 * @param errors  distinct client errors seen, for diagnosis
 */
public record WorkloadResult(long sent, long acked, long unconfirmed, long failed, long pending, Duration elapsed,
                             List<String> errors) {

    /** Copies the errors. */
    public WorkloadResult {
        errors = List.copyOf(errors);
    }

    @Override
    public String toString() {
        return String.format("sent=%d acked=%d unconfirmed=%d failed=%d pending=%d in %d ms%s", sent, acked, unconfirmed,
                failed, pending, elapsed.toMillis(), errors.isEmpty() ? "" : " errors=" + errors);
    }
}
