package io.leasehold.proxy.admin;

import io.leasehold.routing.watch.RoutingTable;

/**
 * Where this proxy's routes come from now. A proxy started with {@code routing.startWithoutEtcd}
 * whose routing snapshot did not load within {@code routing.initialLoadTimeout} serves on the
 * bootstrap brokers with the hash fallback of {@code OwnerLookup} until it does; brokers reject
 * what they do not own, so this costs retries, never correctness.
 */
public final class RoutingMode {

    /** The possible sources of routes. */
    public enum Mode {
        /** Not serving yet: waiting for the first routing snapshot. */
        LOADING,
        /** Serving without a routing snapshot: the bootstrap brokers and the hash fallback. */
        BOOTSTRAP,
        /** Serving on the routing snapshot loaded from etcd (partition and group owners). */
        ETCD
    }

    private final RoutingTable routes;
    private volatile boolean servingWithoutSnapshot;

    public RoutingMode(RoutingTable routes) {
        this.routes = routes;
    }

    /** The proxy serves clients although the snapshot has not loaded. */
    public void serveWithoutSnapshot() {
        servingWithoutSnapshot = true;
    }

    /** The current source of routes; {@link Mode#ETCD} from the moment the snapshot has loaded. */
    public Mode current() {
        if (routes.isLoaded()) {
            return Mode.ETCD;
        }
        return servingWithoutSnapshot ? Mode.BOOTSTRAP : Mode.LOADING;
    }
}
