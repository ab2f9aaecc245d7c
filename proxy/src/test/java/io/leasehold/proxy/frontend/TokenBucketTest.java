package io.leasehold.proxy.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class TokenBucketTest {
    private final AtomicLong now = new AtomicLong(1_000);
    private final TokenBucket bucket = new TokenBucket(10, now::get);

    @Test
    void aFullBucketAllowsOneSecondsWorthAtOnceThenRefillsAtItsRate() {
        for (int i = 0; i < 10; i++) {
            assertThat(bucket.tryAcquire()).as("token %d of the first second", i).isTrue();
        }
        assertThat(bucket.tryAcquire()).as("the eleventh at once").isFalse();
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(100));
        assertThat(bucket.tryAcquire()).as("one tenth of a second later").isTrue();
        assertThat(bucket.tryAcquire()).isFalse();
    }

    @Test
    void saysHowLongUntilATurnOfTokensIsThereCappedAtOneSecondsWorth() {
        assertThat(bucket.nanosUntilTokens(5)).as("while full").isZero();
        for (int i = 0; i < 10; i++) {
            bucket.tryAcquire();
        }
        assertThat(bucket.nanosUntilTokens(1)).isEqualTo(TimeUnit.MILLISECONDS.toNanos(100));
        assertThat(bucket.nanosUntilTokens(5)).isEqualTo(TimeUnit.MILLISECONDS.toNanos(500));
        assertThat(bucket.nanosUntilTokens(64)).as("more than a second's worth").isEqualTo(TimeUnit.SECONDS.toNanos(1));
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(500));
        assertThat(bucket.nanosUntilTokens(5)).isZero();
    }
}
