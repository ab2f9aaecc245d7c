package io.leasehold.broker.produce;

import java.time.Duration;
import org.apache.kafka.common.protocol.Errors;

/**
 * How a produce is answered when etcd does not answer in time (nothing is written either way).
 *
 * @param claimFailed  the error when claiming the partition or reading its state fails
 * @param lookupFailed the error when reading the topic fails
 * @param timeout      how long the topic lookup and the claim may take before those answers
 */
public record EtcdTrouble(Errors claimFailed, Errors lookupFailed, Duration timeout) {

    /** The reference broker's own answers: NOT_LEADER_OR_FOLLOWER for a failed claim, within a produce's default 30 s. */
    public static EtcdTrouble leaseholdDefault() {
        return new EtcdTrouble(Errors.NOT_LEADER_OR_FOLLOWER, Errors.UNKNOWN_SERVER_ERROR, Duration.ofSeconds(30));
    }

    /** A KafScale v1.6 broker's answer: REQUEST_TIMED_OUT (retriable, not written), given quickly. */
    public static EtcdTrouble kafscale() {
        return new EtcdTrouble(Errors.REQUEST_TIMED_OUT, Errors.REQUEST_TIMED_OUT, Duration.ofSeconds(3));
    }
}
