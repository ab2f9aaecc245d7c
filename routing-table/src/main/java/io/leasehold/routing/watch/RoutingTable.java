package io.leasehold.routing.watch;

import io.leasehold.routing.snapshot.Ownership;
import io.leasehold.routing.snapshot.RoutingSnapshot;
import java.time.Duration;
import java.util.function.Consumer;

/** What the proxy asks of the routing view: the current snapshot, and conditional invalidation. */
public interface RoutingTable {

    /** The current immutable snapshot; never null (empty before the first load). */
    RoutingSnapshot snapshot();

    /** Whether the initial load from etcd has completed. */
    boolean isLoaded();

    /** {@link Duration#ZERO} while the view follows etcd live, else the time since it stopped doing so. */
    Duration staleness();

    /**
     * Drops the partition's route only if it is still exactly {@code rejected}, so a newer owner
     * learnt meanwhile is kept. May return before the drop shows in {@link #snapshot()}: callers
     * are event loops, which must not wait for a snapshot rebuild. The route comes back when etcd reports a new owner, or after a
     * short hold if etcd still names the rejected one (that owner is tried again).
     *
     * @return true if the route is dropped (or about to be) by this call
     */
    boolean invalidatePartition(String topic, int partition, Ownership rejected);

    /** As {@link #invalidatePartition}, for a consumer group's coordinator route. */
    boolean invalidateGroup(String group, Ownership rejected);

    /** Returned by {@link #suppressedPartitionOwner} and {@link #suppressedGroupOwner} when no route is dropped. */
    int NONE_SUPPRESSED = -1;

    /**
     * The broker whose route to the partition is dropped after it rejected it, or
     * {@link #NONE_SUPPRESSED}: fallbacks try it last, not never. Lock-free.
     */
    default int suppressedPartitionOwner(String topic, int partition) {
        return NONE_SUPPRESSED;
    }

    /** As {@link #suppressedPartitionOwner}, for a consumer group's coordinator. */
    default int suppressedGroupOwner(String group) {
        return NONE_SUPPRESSED;
    }

    /**
     * A broker took a write for the partition: if it is the owner whose route was dropped after a
     * rejection, its rejection is over, and the route comes back without waiting for the hold.
     * Returns at once (the route comes back shortly after).
     */
    default void ownerAccepted(String topic, int partition, int brokerId) {
    }

    /** How many revisions of KafScale's metadata snapshot could not be read (the last good broker list was kept). */
    default long rejectedMetadataSnapshots() {
        return 0;
    }

    /** Adds a listener called, on the watcher's thread, with each new snapshot. */
    void addListener(Consumer<RoutingSnapshot> listener);
}
