package io.leasehold.routing.watch;

import io.leasehold.routing.snapshot.Ownership;
import io.leasehold.routing.snapshot.PartitionId;
import io.leasehold.routing.snapshot.RoutingSnapshot;
import java.util.HashMap;
import java.util.Map;

/**
 * Routes the proxy invalidated, each with the ownership that was rejected. While a key still
 * shows exactly that ownership, a late watch event or a reload must not bring the route back; any
 * other ownership (or a deletion) of the key ends the entry. Guarded by the watcher's lock.
 */
final class DroppedRoutes {

    private final Map<PartitionId, Ownership> partitions = new HashMap<>();
    private final Map<String, Ownership> groups = new HashMap<>();

    void dropPartition(PartitionId partition, Ownership rejected) {
        partitions.put(partition, rejected);
    }

    void dropGroup(String group, Ownership rejected) {
        groups.put(group, rejected);
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
            if (entry.getValue().equals(builder.partitionOwner(partition.topic(), partition.partition()))) {
                builder.removePartition(partition.topic(), partition.partition());
                return false;
            }
            return true;
        });
        groups.entrySet().removeIf(entry -> {
            if (entry.getValue().equals(builder.groupOwner(entry.getKey()))) {
                builder.removeGroup(entry.getKey());
                return false;
            }
            return true;
        });
    }

    private static <K> boolean suppresses(Map<K, Ownership> dropped, K key, Ownership owner) {
        Ownership rejected = dropped.get(key);
        if (rejected == null) {
            return false;
        }
        if (rejected.equals(owner)) {
            return true;
        }
        dropped.remove(key);
        return false;
    }
}
