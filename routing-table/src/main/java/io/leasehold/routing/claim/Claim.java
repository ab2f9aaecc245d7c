package io.leasehold.routing.claim;

import io.leasehold.routing.snapshot.PartitionId;

/**
 * An ownership key this broker won.
 *
 * @param partition the claimed partition, or null for a group claim
 * @param group     the claimed group, or null for a partition claim
 * @param key       the etcd key
 * @param brokerId  the owner (this broker)
 * @param epoch     the key's {@code create_revision}: the fencing token of this ownership
 * @param leaseId   the etcd lease the key is attached to
 */
public record Claim(PartitionId partition, String group, String key, int brokerId, long epoch, long leaseId) {

    public Claim {
        if ((partition == null) == (group == null)) {
            throw new IllegalArgumentException("a claim is for exactly one partition or one group, got partition="
                    + partition + " group=" + group);
        }
    }

    public boolean isPartitionClaim() {
        return partition != null;
    }
}
