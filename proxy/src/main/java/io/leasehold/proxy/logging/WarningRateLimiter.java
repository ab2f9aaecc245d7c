package io.leasehold.proxy.logging;

import org.slf4j.Logger;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Lets one log line per key (for example a reason and a client address) through per interval and
 * counts the rest, so a misbehaving client cannot flood the log or stall the event loops that
 * write it. Thread-safe; the number of keys tracked is bounded, and keys beyond the bound share one.
 */
public final class WarningRateLimiter {

    /** Keys tracked separately before new ones share {@link #OVERFLOW_KEY}. */
    static final int MAX_KEYS = 4096;
    static final String OVERFLOW_KEY = "(other clients)";

    private final long intervalNanos;
    private final LongSupplier nanoClock;
    private final Map<String, Window> windows = new HashMap<>();

    /** @param intervalMillis at most one line per key per this many milliseconds */
    public WarningRateLimiter(long intervalMillis, LongSupplier nanoClock) {
        if (intervalMillis <= 0) {
            throw new IllegalArgumentException("intervalMillis must be positive, was " + intervalMillis);
        }
        this.intervalNanos = TimeUnit.MILLISECONDS.toNanos(intervalMillis);
        this.nanoClock = nanoClock;
    }

    /** One line per key per second, on the system clock. */
    public static WarningRateLimiter perSecond() {
        return new WarningRateLimiter(1000, System::nanoTime);
    }

    /**
     * Whether a line for {@code key} may be logged now.
     *
     * @return -1 if the line is to be dropped; otherwise how many lines for this key were
     *         dropped since the last one logged (to be reported with it)
     */
    synchronized long admit(String key) {
        long now = nanoClock.getAsLong();
        evictExpired(now);
        String tracked = windows.containsKey(key) || windows.size() < MAX_KEYS ? key : OVERFLOW_KEY;
        Window window = windows.get(tracked);
        if (window == null) {
            windows.put(tracked, new Window(now));
            return 0;
        }
        if (now - window.openedAt < intervalNanos) {
            window.suppressed++;
            return -1;
        }
        long suppressed = window.suppressed;
        window.openedAt = now;
        window.suppressed = 0;
        return suppressed;
    }

    /**
     * Logs a WARN line about {@code client} unless one for the same reason and client address was
     * logged within the interval; an admitted line ends with how many were dropped before it.
     *
     * @param format an SLF4J format whose arguments are {@code args}
     */
    public void warn(Logger log, String reason, SocketAddress client, String format, Object... args) {
        warn(log, reason + " " + hostOf(client), format, args);
    }

    /**
     * Logs a WARN line unless one with the same {@code key} was logged within the interval; an
     * admitted line ends with how many were dropped before it.
     *
     * @param format an SLF4J format whose arguments are {@code args}
     */
    public void warn(Logger log, String key, String format, Object... args) {
        long suppressed = admit(key);
        if (suppressed < 0) {
            return;
        }
        Object[] withNote = Arrays.copyOf(args, args.length + 1);
        withNote[args.length] = suppressed > 0 ? " (" + suppressed + " similar lines suppressed)" : "";
        log.warn(format + "{}", withNote);
    }

    /** The address without the port: a client reconnecting from new ports is still one client. */
    private static String hostOf(SocketAddress client) {
        return client instanceof InetSocketAddress inet && inet.getAddress() != null
                ? inet.getAddress().getHostAddress() : String.valueOf(client);
    }

    private void evictExpired(long now) {
        if (windows.size() >= MAX_KEYS) {
            // A key whose window closed with nothing suppressed carries no information.
            windows.values().removeIf(w -> w.suppressed == 0 && now - w.openedAt >= intervalNanos);
        }
    }

    private static final class Window {
        long openedAt;
        long suppressed;

        Window(long openedAt) {
            this.openedAt = openedAt;
        }
    }
}
