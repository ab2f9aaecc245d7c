package io.leasehold.proxy.frontend;

import java.net.InetAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Connection slots of the Kafka listener: at most {@code maxConnections} in all and at most
 * {@code maxPerAddress} from one client IP address, so one host cannot take every slot. A slot
 * is reserved atomically before a connection is set up and given back when it closes, so the
 * caps hold even when several event loops accept at once. Thread-safe.
 */
final class ConnectionSlots {
    /** Why a connection was refused; {@link #tag()} is the metric's {@code reason}. */
    enum Refusal {
        MAX_CONNECTIONS("max_connections", "limits.maxConnections"),
        MAX_CONNECTIONS_PER_IP("max_connections_per_ip", "limits.maxConnectionsPerIp");

        private final String tag;
        private final String limitKey;

        Refusal(String tag, String limitKey) {
            this.tag = tag;
            this.limitKey = limitKey;
        }

        String tag() {
            return tag;
        }

        String limitKey() {
            return limitKey;
        }
    }

    private final int maxConnections;
    private final int maxPerAddress;
    private final AtomicInteger total = new AtomicInteger();
    private final ConcurrentHashMap<InetAddress, Integer> perAddress = new ConcurrentHashMap<>();

    ConnectionSlots(int maxConnections, int maxPerAddress) {
        this.maxConnections = maxConnections;
        this.maxPerAddress = maxPerAddress;
    }

    /** Takes a slot for a connection from {@code address}; {@code null} if taken, else why not. */
    Refusal tryAcquire(InetAddress address) {
        if (total.incrementAndGet() > maxConnections) {
            total.decrementAndGet();
            return Refusal.MAX_CONNECTIONS;
        }
        boolean[] admitted = {false};
        perAddress.compute(address, (key, open) -> {
            int current = open == null ? 0 : open;
            if (current >= maxPerAddress) {
                return open;
            }
            admitted[0] = true;
            return current + 1;
        });
        if (!admitted[0]) {
            total.decrementAndGet();
            return Refusal.MAX_CONNECTIONS_PER_IP;
        }
        return null;
    }

    /** Gives back the slot of a closed connection from {@code address}. */
    void release(InetAddress address) {
        perAddress.computeIfPresent(address, (key, open) -> open <= 1 ? null : open - 1);
        total.decrementAndGet();
    }

    /** Connections holding a slot. */
    int open() {
        return total.get();
    }
}
