package io.leasehold.routing.claim;

/** The outcome of a claim: this broker won the key, or another ownership holds it. */
public sealed interface ClaimResult {

    /** This broker owns the key (newly, or already did on its current lease). */
    record Won(Claim claim) implements ClaimResult {
    }

    /**
     * Someone else holds the key: another broker, or the same broker id on another lease (a
     * second process misconfigured with our id, or our own previous session not yet expired).
     * {@code ownerBrokerId} is -1 when the key's value is not a broker id; {@code epoch} is the
     * key's {@code create_revision}.
     */
    record HeldByOther(int ownerBrokerId, long epoch) implements ClaimResult {
    }
}
