package io.leasehold.bench.cluster;

import io.leasehold.routing.testing.EtcdServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Runs of consecutive free loopback ports, for proxies that serve one port per broker node. */
final class FreePorts {

    private static final int ATTEMPTS = 50;

    private FreePorts() {
    }

    /** The first of {@code count} consecutive ports that were all free a moment ago. */
    static int consecutive(int count) {
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            int first = EtcdServer.freePort();
            if (first + count - 1 <= 65535 && allFree(first + 1, count - 1)) {
                return first;
            }
        }
        throw new IllegalStateException("found no " + count + " consecutive free loopback ports in " + ATTEMPTS
                + " attempts");
    }

    private static boolean allFree(int first, int count) {
        for (int port = first; port < first + count; port++) {
            try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                socket.setReuseAddress(true);
            } catch (IOException e) {
                return false;
            }
        }
        return true;
    }
}
