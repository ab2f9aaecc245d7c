package io.leasehold.proxy.admin;

import io.leasehold.routing.watch.RoutingTable;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * The proxy's readiness rules in one place, about this proxy's own ability to serve: not ready
 * while draining, before the routing snapshot has loaded (unless the proxy already serves on the
 * bootstrap brokers without it, {@code routing.startWithoutEtcd}: then ready, saying so), or when
 * no backend broker is reachable; and, only if a bound is configured, when the snapshot has been stale (etcd watch
 * broken) longer than it. etcd is shared by every replica, so by default staleness is left to
 * its metric and alert instead of turning all of them unready at once. Every one of these
 * conditions heals without a restart. Live as long as the event loops that serve clients run
 * their tasks.
 */
public final class RoutingHealthProbe implements HealthProbe {

    /** Ready, but routing on the bootstrap brokers: an operator reading /readyz must see the difference. */
    static final Readiness BOOTSTRAP_ROUTING = new Readiness(true,
            "ready, routing on backends.bootstrap: routing snapshot not loaded from etcd yet (routing.startWithoutEtcd)");

    private final RoutingTable routes;
    private final RoutingMode mode;
    private final Duration staleRoutesUnreadyAfter;
    private final BooleanSupplier anyBackendReachable;
    private final BooleanSupplier draining;
    private final BooleanSupplier eventLoopsResponsive;

    /**
     * @param mode                    where routes come from now
     * @param staleRoutesUnreadyAfter {@code routing.staleRoutesUnreadyAfter}; {@code null} when stale
     *                                routes alone never make this proxy unready
     * @param anyBackendReachable     true when at least one backend broker accepts connections
     * @param draining                true once shutdown has begun
     * @param eventLoopsResponsive    false once an event loop serving clients is stuck
     */
    public RoutingHealthProbe(RoutingTable routes, RoutingMode mode, Duration staleRoutesUnreadyAfter,
                              BooleanSupplier anyBackendReachable, BooleanSupplier draining,
                              BooleanSupplier eventLoopsResponsive) {
        this.eventLoopsResponsive = eventLoopsResponsive;
        this.routes = routes;
        this.mode = mode;
        this.staleRoutesUnreadyAfter = staleRoutesUnreadyAfter;
        this.anyBackendReachable = anyBackendReachable;
        this.draining = draining;
    }

    @Override
    public boolean isLive() {
        return eventLoopsResponsive.getAsBoolean();
    }

    @Override
    public Readiness readiness() {
        if (draining.getAsBoolean()) {
            return Readiness.notReady("draining: shutting down, finishing in-flight requests");
        }
        RoutingMode.Mode source = mode.current();
        if (source == RoutingMode.Mode.LOADING) {
            return Readiness.notReady("routing snapshot not loaded from etcd yet");
        }
        Duration staleness = routes.staleness();
        if (staleRoutesUnreadyAfter != null && staleness.compareTo(staleRoutesUnreadyAfter) > 0) {
            return Readiness.notReady("routing snapshot stale for " + staleness.toMillis()
                    + "ms (etcd watch broken; bound routing.staleRoutesUnreadyAfter=" + staleRoutesUnreadyAfter.toMillis()
                    + "ms)");
        }
        if (!anyBackendReachable.getAsBoolean()) {
            return Readiness.notReady("no backend broker reachable");
        }
        return source == RoutingMode.Mode.BOOTSTRAP ? BOOTSTRAP_ROUTING : Readiness.ok();
    }
}
