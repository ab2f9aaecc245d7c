package io.leasehold.broker.ownership;

import io.leasehold.routing.claim.Claim;

/** The answer to "may this broker write this partition now?". */
public sealed interface WriteAccess {

    /**
     * This broker may write the partition until the grant is revoked.
     *
     * @param writerTag goes into segment file names; unique per ownership, so owners never share a file
     * @param claim     the ownership claim that fences commits, or null when writes are not fenced
     */
    record Granted(String topic, int partition, String writerTag, Claim claim) implements WriteAccess {
    }

    /** Another broker owns the partition. */
    record Refused(int ownerBrokerId) implements WriteAccess {
    }
}
