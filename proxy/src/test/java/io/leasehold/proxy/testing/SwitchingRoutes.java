package io.leasehold.proxy.testing;

import io.leasehold.routing.snapshot.Ownership;
import io.leasehold.routing.snapshot.RoutingSnapshot;
import io.leasehold.routing.watch.RoutingTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * A routing table for unit tests: serves {@link #current}, records every invalidation (and on
 * one switches to {@link #afterInvalidation}, as the watcher would once etcd shows the new owner)
 * and every write a broker took for a partition it was reached on by a fallback route.
 */
public final class SwitchingRoutes implements RoutingTable {
    public final AtomicReference<RoutingSnapshot> current = new AtomicReference<>();
    public final List<String> invalidations = Collections.synchronizedList(new ArrayList<>());
    /** Writes taken on a fallback route, as "topic-partition@broker". */
    public final List<String> acceptances = Collections.synchronizedList(new ArrayList<>());
    public volatile RoutingSnapshot afterInvalidation;

    @Override
    public RoutingSnapshot snapshot() {
        return current.get();
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
        return invalidated(topic + "-" + partition + "@" + rejected);
    }

    @Override
    public boolean invalidateGroup(String group, Ownership rejected) {
        return invalidated(group + "@" + rejected);
    }

    @Override
    public void ownerAccepted(String topic, int partition, int brokerId) {
        acceptances.add(topic + "-" + partition + "@" + brokerId);
    }

    private boolean invalidated(String what) {
        invalidations.add(what);
        current.set(afterInvalidation);
        return true;
    }

    @Override
    public void addListener(Consumer<RoutingSnapshot> listener) {
    }
}
