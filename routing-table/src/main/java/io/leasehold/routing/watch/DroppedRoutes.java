package io.leasehold.routing.watch;

import io.leasehold.routing.snapshot.Ownership;
import io.leasehold.routing.snapshot.PartitionId;
import io.leasehold.routing.snapshot.RoutingSnapshot;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Routes the proxy invalidated, each with the ownership that was rejected. While a key still
 * shows exactly that ownership, a late watch event or a reload must not bring the route back; any
 * other ownership (or a deletion) of the key ends the entry. An entry is only held for a while
 * ({@link #expirePartition}): an owner that rejected once while keeping its key is tried again
 * rather than never. Changed only under the watcher's lock; read without it.
 */
final class DroppedRoutes {

    /** One drop; compared by identity, so a later drop of the same ownership is a new entry. */
    static final class Drop {
        private final Ownership rejected;

        private Drop(Ownership rejected) {
            this.rejected = rejected;
        }

        Ownership rejected() {
            return rejected;
        }
    }

    private final Map<PartitionId, Drop> partitions = new ConcurrentHashMap<>();
    private final Map<String, Drop> groups = new ConcurrentHashMap<>();

    /** The partition's drop in force, or null. */
    Drop partition(PartitionId partition) {
        return partitions.get(partition);
    }

    /** The group's drop in force, or null. */
    Drop group(String group) {
        return groups.get(group);
    }

    Drop dropPartition(PartitionId partition, Ownership rejected) {
        Drop drop = new Drop(rejected);
        partitions.put(partition, drop);
        return drop;
    }

    Drop dropGroup(String group, Ownership rejected) {
        Drop drop = new Drop(rejected);
        groups.put(group, drop);
        return drop;
    }

    /** Ends {@code drop} if it is still in force; true if it was (etcd still shows its ownership). */
    boolean expirePartition(PartitionId partition, Drop drop) {
        return partitions.remove(partition, drop);
    }

    boolean expireGroup(String group, Drop drop) {
        return groups.remove(group, drop);
    }

    /** Whether etcd's {@code owner} of the partition is one the proxy rejected; forgets the entry if not. */
    boolean suppressesPartition(PartitionId partition, Ownership owner) {
        return suppresses(partitions, partition, owner);
    }

    boolean suppressesGroup(String group, Ownership owner) {
        return suppresses(groups, group, owner);
    }

    void forgetPartition(PartitionId partition) {
        partitions.remove(partition);
    }

    void forgetGroup(String group) {
        groups.remove(group);
    }

    /**
     * After a full reload into {@code builder}: removes from it the routes still rejected, and
     * forgets entries whose keys now show something else or are gone.
     */
    void reapply(RoutingSnapshot.Builder builder) {
        partitions.entrySet().removeIf(entry -> {
            PartitionId partition = entry.getKey();
            if (entry.getValue().rejected().equals(builder.partitionOwner(partition.topic(), partition.partition()))) {
                builder.removePartition(partition.topic(), partition.partition());
                return false;
            }
            return true;
        });
        groups.entrySet().removeIf(entry -> {
            if (entry.getValue().rejected().equals(builder.groupOwner(entry.getKey()))) {
                builder.removeGroup(entry.getKey());
                return false;
            }
            return true;
        });
    }

    private static <K> boolean suppresses(Map<K, Drop> dropped, K key, Ownership owner) {
        Drop drop = dropped.get(key);
        if (drop == null) {
            return false;
        }
        if (drop.rejected().equals(owner)) {
            return true;
        }
        dropped.remove(key);
        return false;
    }
}
