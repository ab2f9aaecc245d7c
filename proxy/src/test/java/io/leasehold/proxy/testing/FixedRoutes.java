package io.leasehold.proxy.testing;

import io.leasehold.routing.snapshot.Ownership;
import io.leasehold.routing.snapshot.RoutingSnapshot;
import io.leasehold.routing.watch.RoutingTable;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * A routing table serving one fixed snapshot, for unit tests of one routing class; {@code
 * suppressedOwner} is the broker whose dropped routes it reports for every unowned partition and
 * group ({@link RoutingTable#NONE_SUPPRESSED} for none).
 */
public record FixedRoutes(RoutingSnapshot snapshot, int suppressedOwner) implements RoutingTable {

    /** A table whose routes were never dropped. */
    public FixedRoutes(RoutingSnapshot snapshot) {
        this(snapshot, RoutingTable.NONE_SUPPRESSED);
    }

    @Override
    public boolean isLoaded() {
        return true;
    }

    @Override
    public Duration staleness() {
        return Duration.ZERO;
    }

    @Override
    public boolean invalidatePartition(String topic, int partition, Ownership rejected) {
        return false;
    }

    @Override
    public boolean invalidateGroup(String group, Ownership rejected) {
        return false;
    }

    @Override
    public int suppressedPartitionOwner(String topic, int partition) {
        return suppressedOwner;
    }

    @Override
    public int suppressedGroupOwner(String group) {
        return suppressedOwner;
    }

    @Override
    public void addListener(Consumer<RoutingSnapshot> listener) {
    }
}
