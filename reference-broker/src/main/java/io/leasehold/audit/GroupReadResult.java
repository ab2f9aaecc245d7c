package io.leasehold.audit;

import java.time.Duration;
import java.util.List;

/**
 * What a consumer group read of an audited topic saw.
 *
 * @param consumed        records delivered to the group's members (re-deliveries included)
 * @param distinct        distinct audited records among them
 * @param missing         confirmed records the group never delivered
 * @param missingExamples a few of them
 * @param errors          client errors the members hit
 */
public record GroupReadResult(long consumed, long distinct, long missing, List<RecordIdentity> missingExamples,
                              Duration elapsed, List<String> errors) {

    /** Copies the lists. */
    public GroupReadResult {
        missingExamples = List.copyOf(missingExamples);
        errors = List.copyOf(errors);
    }

    /** Whether every confirmed record reached the group. */
    public boolean complete() {
        return missing == 0;
    }

    @Override
    public String toString() {
        return String.format("consumed=%d distinct=%d missing=%d in %d ms%s%s", consumed, distinct, missing,
                elapsed.toMillis(), missingExamples.isEmpty() ? "" : " e.g. " + missingExamples,
                errors.isEmpty() ? "" : " errors=" + errors);
    }
}
