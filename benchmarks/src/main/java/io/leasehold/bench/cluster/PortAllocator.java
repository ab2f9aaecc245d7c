package io.leasehold.bench.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;

/**
 * Hands out free loopback ports, never the same one twice in one run (a port found free by
 * binding port 0 could otherwise be handed to two servers started before either binds it).
 */
public final class PortAllocator {

    private final Set<Integer> handedOut = new HashSet<>();

    public synchronized int next() {
        for (int attempt = 0; attempt < 100; attempt++) {
            int port = probe();
            if (handedOut.add(port)) {
                return port;
            }
        }
        throw new IllegalStateException("no unused free loopback port after 100 attempts");
    }

    private static int probe() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }
}
