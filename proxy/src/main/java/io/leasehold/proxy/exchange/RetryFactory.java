package io.leasehold.proxy.exchange;

import io.github.resilience4j.core.IntervalFunction;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.time.Duration;
import java.util.function.Predicate;

/**
 * Builds the resilience4j retries used for rejected partitions and groups: exponential backoff
 * with jitter between the configured bounds. The caller's predicate also checks the request's
 * own deadline, so retries never outlive the client's timeout.
 */
public final class RetryFactory {
    private static final double MULTIPLIER = 2.0;
    private static final double JITTER = 0.5;

    private final Duration initialBackoff;
    private final Duration maxBackoff;

    public RetryFactory(Duration initialBackoff, Duration maxBackoff) {
        this.initialBackoff = initialBackoff;
        this.maxBackoff = maxBackoff;
    }

    /** The longest wait between two attempts: a deadline check must leave at least this much room. */
    public Duration maxBackoff() {
        return maxBackoff;
    }

    /**
     * A retry that repeats while {@code retryOnResult} holds, at most {@code maxAttempts} times,
     * returning the last result otherwise.
     */
    public <T> Retry create(String name, Predicate<T> retryOnResult, int maxAttempts) {
        RetryConfig config = RetryConfig.<T>custom()
                .maxAttempts(maxAttempts)
                .intervalFunction(IntervalFunction.ofExponentialRandomBackoff(initialBackoff, MULTIPLIER, JITTER,
                        maxBackoff))
                .retryOnResult(retryOnResult)
                .retryOnException(e -> false)
                .failAfterMaxAttempts(false)
                .build();
        return Retry.of(name, config);
    }
}
