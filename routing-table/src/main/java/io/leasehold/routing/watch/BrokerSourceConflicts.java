package io.leasehold.routing.watch;

import io.leasehold.routing.snapshot.BrokerAddress;
import io.leasehold.routing.snapshot.RoutingSnapshot;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs, once per distinct disagreement, a broker id whose registration and metadata snapshot entry
 * name different addresses. The registration is used; the log line says so, because a lagging
 * snapshot is usually harmless but a wrong registration is not. Used from the watcher's thread only.
 */
final class BrokerSourceConflicts {

    private static final Logger LOG = LoggerFactory.getLogger(BrokerSourceConflicts.class);

    private final Map<Integer, String> reported = new HashMap<>();

    void check(RoutingSnapshot snapshot) {
        Map<Integer, BrokerAddress> listed = snapshot.listedBrokers();
        if (listed.isEmpty()) {
            return;
        }
        snapshot.registeredBrokers().forEach((id, registered) -> {
            BrokerAddress fromSnapshot = listed.get(id);
            if (fromSnapshot == null || sameEndpoint(registered, fromSnapshot)) {
                return;
            }
            String conflict = registered + " vs " + fromSnapshot;
            if (!conflict.equals(reported.put(id, conflict))) {
                LOG.warn("broker {} is registered at {}:{} but the metadata snapshot lists {}:{}; routing to the registered address",
                        id, registered.host(), registered.port(), fromSnapshot.host(), fromSnapshot.port());
            }
        });
    }

    private static boolean sameEndpoint(BrokerAddress a, BrokerAddress b) {
        return a.host().equals(b.host()) && a.port() == b.port() && Objects.equals(a.rack(), b.rack());
    }
}
