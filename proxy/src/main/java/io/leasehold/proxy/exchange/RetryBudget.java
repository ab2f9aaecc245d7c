package io.leasehold.proxy.exchange;

import java.time.Duration;

/**
 * The time one exchange may spend on the client's behalf. Another attempt is only started if,
 * even after the longest backoff, it still has time to be answered: a write sent with almost no
 * time left would come back as an unknown outcome (REQUEST_TIMED_OUT) rather than the rejection
 * the client can simply retry. Later attempts are told how much time is left rather than the
 * client's full timeout.
 */
final class RetryBudget {
    /** What the last attempt is left at least, unless the budget is short: then a quarter of it. */
    private static final Duration LAST_ATTEMPT = Duration.ofSeconds(1);

    private final long endNanos;
    private final long maxBackoffNanos;
    private final long lastAttemptNanos;

    RetryBudget(Duration budget, Duration maxBackoff) {
        this.endNanos = System.nanoTime() + budget.toNanos();
        this.maxBackoffNanos = maxBackoff.toNanos();
        this.lastAttemptNanos = Math.min(LAST_ATTEMPT.toNanos(), budget.toNanos() / 4);
    }

    /** True if a retry after the longest backoff still starts with time to be answered within the budget. */
    boolean allowsAnotherAttempt() {
        return endNanos - System.nanoTime() - maxBackoffNanos - lastAttemptNanos > 0;
    }

    /** Milliseconds left (0 when spent). */
    int remainingMillis() {
        return (int) Math.max(0, Math.min(Integer.MAX_VALUE, (endNanos - System.nanoTime()) / 1_000_000));
    }
}
