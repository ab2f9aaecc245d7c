package io.leasehold.proxy.faults;

import io.leasehold.routing.testing.LoopbackPorts;
import java.util.Map;

/** The environment that starts a test proxy in node-per-owner mode on a fresh block of this test JVM's loopback ports. */
final class NodePerOwnerEnvironment {
    private NodePerOwnerEnvironment() {
    }

    /** Node-per-owner for broker ids {@code firstNodeId} .. {@code firstNodeId + nodes - 1}, one port each. */
    static Map<String, String> of(int firstNodeId, int nodes) {
        return Map.of("LEASEHOLD_PRESENTATION_MODE", "node-per-owner",
                "LEASEHOLD_PRESENTATION_NODE_PORT_BASE", Integer.toString(LoopbackPorts.consecutive(nodes)),
                "LEASEHOLD_PRESENTATION_FIRST_NODE_ID", Integer.toString(firstNodeId),
                "LEASEHOLD_PRESENTATION_NODE_COUNT", Integer.toString(nodes));
    }
}
