package io.leasehold.routing.etcd;

import io.github.resilience4j.core.IntervalFunction;
import java.time.Duration;

/**
 * The delays between attempts to get back to etcd: exponential from {@code initial}, capped at
 * {@code max}, restarting from {@code initial} after a success. Not thread-safe; each reconnect
 * loop owns one.
 */
public final class ReconnectBackoff {

    private final IntervalFunction intervals;
    private int attempt;

    public ReconnectBackoff(Duration initial, Duration max) {
        this.intervals = IntervalFunction.ofExponentialBackoff(initial, 2.0, max);
    }

    /** The delay before the next attempt; each call lengthens the following one. */
    public Duration next() {
        attempt = Math.min(attempt + 1, 30);
        return Duration.ofMillis(intervals.apply(attempt));
    }

    public void reset() {
        attempt = 0;
    }
}
