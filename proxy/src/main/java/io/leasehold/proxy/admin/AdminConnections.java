package io.leasehold.proxy.admin;

import io.netty.channel.Channel;
import java.util.ArrayDeque;

/**
 * The admin server's open connections, oldest first. When a connection arrives while the cap is
 * reached, the oldest one is closed to make room rather than the newcomer: whatever a few clients
 * do with their connections (hold them open, trickle bytes, never read), a probe that connects
 * is served, and a well-behaved client's connection is young, since it sends its request at once.
 * Confined to the admin event loop, where every admin connection lives.
 */
final class AdminConnections {
    private final int capacity;
    private final ArrayDeque<Channel> open = new ArrayDeque<>();

    AdminConnections(int capacity) {
        this.capacity = capacity;
    }

    /** Counts {@code channel} in, closing the oldest open connection if there is no room. */
    void admit(Channel channel) {
        if (open.size() >= capacity) {
            open.pollFirst().close();
        }
        open.addLast(channel);
        channel.closeFuture().addListener(closed -> open.remove(channel));
    }
}
