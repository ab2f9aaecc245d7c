package io.leasehold.proxy.admin;

import io.leasehold.routing.snapshot.RoutingSnapshot;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

class RoutingHealthProbeTest {

    private final FixedRoutingTable routes = new FixedRoutingTable();
    private final AtomicBoolean backendReachable = new AtomicBoolean(true);
    private final AtomicBoolean draining = new AtomicBoolean(false);
    private final AtomicBoolean eventLoopsResponsive = new AtomicBoolean(true);
    private final RoutingMode mode = new RoutingMode(routes);
    private final RoutingHealthProbe probe = new RoutingHealthProbe(routes, mode, Duration.ofSeconds(30),
            backendReachable::get, draining::get, eventLoopsResponsive::get);

    @Test
    void notReadyUntilTheSnapshotIsLoaded() {
        assertThat(probe.readiness()).isEqualTo(Readiness.notReady("routing snapshot not loaded from etcd yet"));

        routes.loaded(RoutingSnapshot.empty());

        assertThat(probe.readiness()).isEqualTo(Readiness.ok());
    }

    @Test
    void readyAndSayingSoWhileServingOnTheBootstrapBrokersBeforeTheSnapshotLoads() {
        mode.serveWithoutSnapshot();

        assertThat(probe.readiness()).isEqualTo(new Readiness(true, "ready, routing on backends.bootstrap: routing "
                + "snapshot not loaded from etcd yet (routing.startWithoutEtcd)"));
        backendReachable.set(false);
        assertThat(probe.readiness()).isEqualTo(Readiness.notReady("no backend broker reachable"));
        backendReachable.set(true);

        routes.loaded(RoutingSnapshot.empty());

        assertThat(probe.readiness()).isEqualTo(Readiness.ok());
    }

    @Test
    void turnsUnreadyOnlyWhenStalePastTheBound() {
        routes.loaded(RoutingSnapshot.empty()).stale(Duration.ofSeconds(30));
        assertThat(probe.readiness().ready()).isTrue();

        routes.stale(Duration.ofSeconds(31));

        assertThat(probe.readiness()).isEqualTo(Readiness.notReady("routing snapshot stale for 31000ms (etcd watch "
                + "broken; bound routing.staleRoutesUnreadyAfter=30000ms)"));
    }

    @Test
    void withoutABoundStaleRoutesAloneLeaveTheProxyReady() {
        RoutingHealthProbe unbounded = new RoutingHealthProbe(routes, mode, null, backendReachable::get, draining::get,
                eventLoopsResponsive::get);
        routes.loaded(RoutingSnapshot.empty()).stale(Duration.ofHours(1));

        assertThat(unbounded.readiness()).isEqualTo(Readiness.ok());
    }

    @Test
    void notReadyWithoutAReachableBackend() {
        routes.loaded(RoutingSnapshot.empty());
        backendReachable.set(false);

        assertThat(probe.readiness()).isEqualTo(Readiness.notReady("no backend broker reachable"));
    }

    @Test
    void drainingWinsOverEverythingButStaysLive() {
        routes.loaded(RoutingSnapshot.empty());
        draining.set(true);

        assertThat(probe.readiness().ready()).isFalse();
        assertThat(probe.readiness().reason()).startsWith("draining");
        assertThat(probe.isLive()).isTrue();
    }

    @Test
    void notLiveOnceAnEventLoopIsStuck() {
        assertThat(probe.isLive()).isTrue();

        eventLoopsResponsive.set(false);

        assertThat(probe.isLive()).isFalse();
    }
}
