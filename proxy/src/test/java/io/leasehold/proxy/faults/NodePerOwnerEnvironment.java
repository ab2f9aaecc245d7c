package io.leasehold.proxy.faults;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.IntStream;

/** The environment that starts a test proxy in node-per-owner mode on a fresh block of free loopback ports. */
final class NodePerOwnerEnvironment {
    private NodePerOwnerEnvironment() {
    }

    /** Node-per-owner for broker ids {@code firstNodeId} .. {@code firstNodeId + nodes - 1}, one port each. */
    static Map<String, String> of(int firstNodeId, int nodes) {
        return Map.of("LEASEHOLD_PRESENTATION_MODE", "node-per-owner",
                "LEASEHOLD_PRESENTATION_NODE_PORT_BASE", Integer.toString(freePortBlock(nodes)),
                "LEASEHOLD_PRESENTATION_FIRST_NODE_ID", Integer.toString(firstNodeId),
                "LEASEHOLD_PRESENTATION_NODE_COUNT", Integer.toString(nodes));
    }

    /** The first of {@code count} consecutive ports free on loopback now, below the ephemeral range. */
    private static int freePortBlock(int count) {
        for (int attempt = 0; attempt < 200; attempt++) {
            int base = ThreadLocalRandom.current().nextInt(20_000, 32_000);
            if (IntStream.range(base, base + count).allMatch(NodePerOwnerEnvironment::isFree)) {
                return base;
            }
        }
        throw new IllegalStateException("no " + count + " consecutive free loopback ports in 20000..32000");
    }

    private static boolean isFree(int port) {
        try (ServerSocket probe = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException taken) {
            return false;
        }
    }
}
