package io.leasehold.bench.cluster;

import io.leasehold.routing.testing.LoopbackPorts;
import java.util.Locale;

/**
 * Which brokers a Leasehold proxy shows its clients: the YAML {@code presentation} section it is
 * started with. Node-per-owner serves node {@code firstNodeId + i} on port {@code nodePortBase + i}.
 */
public record Presentation(String mode, int firstNodeId, int nodeCount, int nodePortBase) {

    /**
     * The whole proxy as one broker, answering a Produce without an owner silent for 5 s
     * ({@code presentation.produceOwnerDeadline}, off by default), which the owner stall measures.
     */
    public static Presentation singleNode() {
        return new Presentation("single-node", 0, 0, 0);
    }

    /** One node per backend broker id in {@code firstNodeId .. firstNodeId + nodeCount - 1}, on free ports. */
    public static Presentation nodePerOwner(int firstNodeId, int nodeCount) {
        return new Presentation("node-per-owner", firstNodeId, nodeCount, LoopbackPorts.consecutive(nodeCount));
    }

    /** Whether {@code port} is one of the node ports (the proxy's own ports must not be). */
    boolean isNodePort(int port) {
        return nodeCount > 0 && port >= nodePortBase && port < nodePortBase + nodeCount;
    }

    /** The YAML section. */
    String yaml() {
        if (mode.equals("single-node")) {
            return String.format(Locale.ROOT, "presentation: { produceOwnerDeadline: 5s }%n");
        }
        return String.format(Locale.ROOT,
                "presentation: { mode: %s, firstNodeId: %d, nodeCount: %d, nodePortBase: %d }%n",
                mode, firstNodeId, nodeCount, nodePortBase);
    }
}
