package io.leasehold.proxy.admin;

import io.leasehold.routing.snapshot.Ownership;
import io.leasehold.routing.snapshot.RoutingSnapshot;
import io.leasehold.routing.watch.RoutingTable;

import java.time.Duration;
import java.util.function.Consumer;

/** A routing table whose state a unit test sets directly, for testing readers of the table. */
final class FixedRoutingTable implements RoutingTable {

    private volatile RoutingSnapshot snapshot = RoutingSnapshot.empty();
    private volatile boolean loaded;
    private volatile Duration staleness = Duration.ZERO;
    private volatile long rejectedMetadataSnapshots;

    FixedRoutingTable loaded(RoutingSnapshot value) {
        snapshot = value;
        loaded = true;
        return this;
    }

    FixedRoutingTable stale(Duration value) {
        staleness = value;
        return this;
    }

    FixedRoutingTable rejectedMetadataSnapshots(long value) {
        rejectedMetadataSnapshots = value;
        return this;
    }

    @Override
    public long rejectedMetadataSnapshots() {
        return rejectedMetadataSnapshots;
    }

    @Override
    public RoutingSnapshot snapshot() {
        return snapshot;
    }

    @Override
    public boolean isLoaded() {
        return loaded;
    }

    @Override
    public Duration staleness() {
        return staleness;
    }

    @Override
    public boolean invalidatePartition(String topic, int partition, Ownership rejected) {
        throw new UnsupportedOperationException("admin tests never invalidate routes");
    }

    @Override
    public boolean invalidateGroup(String group, Ownership rejected) {
        throw new UnsupportedOperationException("admin tests never invalidate routes");
    }

    @Override
    public void addListener(Consumer<RoutingSnapshot> listener) {
        throw new UnsupportedOperationException("admin tests never listen");
    }
}
