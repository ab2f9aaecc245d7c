package io.leasehold.proxy.request;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A client connection's quota throttle (KIP-219): after an answer that told the client to wait,
 * the connection is not read, and the requests it already sent do not start, until that time
 * has passed, so a client that ignores {@code throttle_time_ms} is held back all the same. Kept
 * on the connection's channel, where request handlers find it through
 * {@link ClientContext#throttleFor}; all state moves on the channel's event loop.
 */
public final class ConnectionThrottle {
    private static final AttributeKey<ConnectionThrottle> KEY = AttributeKey.valueOf(ConnectionThrottle.class,
            "throttle");

    private final Channel channel;
    private final Runnable changed;
    private final LongSupplier nanoClock;
    private long until;
    private boolean active;

    /**
     * @param changed called on the event loop when the throttle starts and when it ends, so the
     *                connection's reading follows it
     */
    private ConnectionThrottle(Channel channel, Runnable changed, LongSupplier nanoClock) {
        this.channel = channel;
        this.changed = changed;
        this.nanoClock = nanoClock;
    }

    /** Puts a throttle on {@code channel}, where {@link #of} finds it. */
    public static ConnectionThrottle attach(Channel channel, Runnable changed, LongSupplier nanoClock) {
        ConnectionThrottle throttle = new ConnectionThrottle(channel, changed, nanoClock);
        channel.attr(KEY).set(throttle);
        return throttle;
    }

    /** The throttle on {@code channel}, {@code null} when its connection has none. */
    public static ConnectionThrottle of(Channel channel) {
        return channel.attr(KEY).get();
    }

    /** Whether the connection is held back now. */
    public boolean active() {
        return active;
    }

    /**
     * Holds the connection back for {@code millis} from now, or longer if an earlier throttle
     * lasts longer. Any thread may call it.
     */
    public void throttleFor(long millis) {
        if (channel.eventLoop().inEventLoop()) {
            extend(millis);
        } else {
            channel.eventLoop().execute(() -> extend(millis));
        }
    }

    private void extend(long millis) {
        long end = nanoClock.getAsLong() + TimeUnit.MILLISECONDS.toNanos(millis);
        if (active && end - until <= 0) {
            return;
        }
        until = end;
        if (!active) {
            active = true;
            changed.run();
            endAt(until);
        }
    }

    /** Ends the throttle at {@code end}, or later when it was extended meanwhile. */
    private void endAt(long end) {
        channel.eventLoop().schedule(() -> {
            if (until - nanoClock.getAsLong() > 0) {
                endAt(until);
                return;
            }
            active = false;
            changed.run();
        }, Math.max(0, end - nanoClock.getAsLong()), TimeUnit.NANOSECONDS);
    }
}
