package io.leasehold.proxy.routing;

import java.time.Duration;

/**
 * The time one exchange may spend on the client's behalf. Another attempt is only started if
 * it can begin before the budget ends even after the longest backoff, and later attempts are
 * told how much time is left rather than the client's full timeout.
 */
final class RetryBudget {
    private final long endNanos;
    private final long maxBackoffNanos;

    RetryBudget(Duration budget, Duration maxBackoff) {
        this.endNanos = System.nanoTime() + budget.toNanos();
        this.maxBackoffNanos = maxBackoff.toNanos();
    }

    /** True if a retry after the longest backoff still starts within the budget. */
    boolean allowsAnotherAttempt() {
        return endNanos - System.nanoTime() - maxBackoffNanos > 0;
    }

    /** Milliseconds left (0 when spent). */
    int remainingMillis() {
        return (int) Math.max(0, Math.min(Integer.MAX_VALUE, (endNanos - System.nanoTime()) / 1_000_000));
    }
}
