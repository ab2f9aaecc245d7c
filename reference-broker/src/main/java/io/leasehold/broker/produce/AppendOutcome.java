package io.leasehold.broker.produce;

import org.apache.kafka.common.protocol.Errors;

/**
 * What happened to one partition's records: appended (or recognised as an idempotent
 * duplicate) at {@code baseOffset}, or rejected with {@code error}.
 */
public record AppendOutcome(Errors error, long baseOffset, long logStartOffset, String message) {

    public static AppendOutcome appended(long baseOffset, long logStartOffset) {
        return new AppendOutcome(Errors.NONE, baseOffset, logStartOffset, null);
    }

    public static AppendOutcome failed(Errors error, String message) {
        return new AppendOutcome(error, -1, -1, message);
    }
}
