package io.leasehold.routing.snapshot;

/**
 * Who owns a partition or group, as etcd says.
 *
 * @param brokerId the owning broker's id (the decimal value of the lease key)
 * @param epoch    the lease key's {@code create_revision}: it changes whenever ownership is won
 *                 anew, so it tells two successive ownerships by the same broker apart
 */
public record Ownership(int brokerId, long epoch) {
}
