package io.leasehold.proxy.frontend;

import java.util.function.LongSupplier;

/**
 * A token bucket bounding how often something happens per second: up to {@code perSecond} at
 * once after a quiet second, then {@code perSecond} a second. It bounds how many new
 * connections (or TLS handshakes) one proxy starts, where a connect beyond it is closed at once,
 * and how many requests one client connection starts, where a request beyond it waits
 * ({@link #nanosUntilTokens} says how long). Thread-safe.
 */
final class TokenBucket {
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final long perSecond;
    private final LongSupplier nanoClock;
    private double tokens;
    private long refilledAt;

    TokenBucket(int perSecond, LongSupplier nanoClock) {
        if (perSecond <= 0) {
            throw new IllegalArgumentException("rate must be positive, was " + perSecond);
        }
        this.perSecond = perSecond;
        this.nanoClock = nanoClock;
        this.tokens = perSecond;
        this.refilledAt = nanoClock.getAsLong();
    }

    /** Takes one token if there is one: true if the caller may go on. */
    synchronized boolean tryAcquire() {
        refill();
        if (tokens < 1) {
            return false;
        }
        tokens--;
        return true;
    }

    /**
     * How long until {@code count} tokens are there (0 if they are now); a count above one
     * second's worth is taken as one second's worth.
     */
    synchronized long nanosUntilTokens(int count) {
        refill();
        double wanted = Math.min(count, perSecond);
        return tokens >= wanted ? 0 : (long) Math.ceil((wanted - tokens) * NANOS_PER_SECOND / perSecond);
    }

    private void refill() {
        long now = nanoClock.getAsLong();
        tokens = Math.min(perSecond, tokens + (double) (now - refilledAt) * perSecond / NANOS_PER_SECOND);
        refilledAt = now;
    }
}
