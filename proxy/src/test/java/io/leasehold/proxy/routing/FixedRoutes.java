package io.leasehold.proxy.routing;

import io.leasehold.routing.snapshot.Ownership;
import io.leasehold.routing.snapshot.RoutingSnapshot;
import io.leasehold.routing.watch.RoutingTable;
import java.time.Duration;
import java.util.function.Consumer;

/** A routing table serving one fixed snapshot, for unit tests of one routing class. */
record FixedRoutes(RoutingSnapshot snapshot) implements RoutingTable {
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
    public void addListener(Consumer<RoutingSnapshot> listener) {
    }
}
