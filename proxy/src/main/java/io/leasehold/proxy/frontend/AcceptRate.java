package io.leasehold.proxy.frontend;

import java.util.function.LongSupplier;

/**
 * A token bucket bounding how many new connections (or TLS handshakes) one proxy starts per
 * second: up to {@code perSecond} at once after a quiet second, then {@code perSecond} a
 * second. A burst of connects beyond it is closed at once, which costs the proxy far less than
 * setting each up, while established connections are not affected. Thread-safe.
 */
final class AcceptRate {
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final long perSecond;
    private final LongSupplier nanoClock;
    private double tokens;
    private long refilledAt;

    AcceptRate(int perSecond, LongSupplier nanoClock) {
        if (perSecond <= 0) {
            throw new IllegalArgumentException("rate must be positive, was " + perSecond);
        }
        this.perSecond = perSecond;
        this.nanoClock = nanoClock;
        this.tokens = perSecond;
        this.refilledAt = nanoClock.getAsLong();
    }

    /** Takes one token if there is one: true if the connection may go on. */
    synchronized boolean tryAcquire() {
        long now = nanoClock.getAsLong();
        tokens = Math.min(perSecond, tokens + (double) (now - refilledAt) * perSecond / NANOS_PER_SECOND);
        refilledAt = now;
        if (tokens < 1) {
            return false;
        }
        tokens--;
        return true;
    }
}
