package io.leasehold.proxy.logging;

import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WarningRateLimiterTest {

    private final AtomicLong now = new AtomicLong(1_000);
    private final WarningRateLimiter limiter = new WarningRateLimiter(1000, now::get);

    @Test
    void admitsOneLinePerKeyPerIntervalAndCountsTheDroppedOnes() {
        assertThat(limiter.admit("refused 10.0.0.1")).isZero();
        assertThat(limiter.admit("refused 10.0.0.1")).isEqualTo(-1);
        assertThat(limiter.admit("refused 10.0.0.1")).isEqualTo(-1);

        advanceMillis(999);
        assertThat(limiter.admit("refused 10.0.0.1")).isEqualTo(-1);

        advanceMillis(1);
        assertThat(limiter.admit("refused 10.0.0.1")).isEqualTo(3);
        assertThat(limiter.admit("refused 10.0.0.1")).isEqualTo(-1);
    }

    @Test
    void keysAreLimitedIndependently() {
        assertThat(limiter.admit("refused 10.0.0.1")).isZero();
        assertThat(limiter.admit("refused 10.0.0.2")).isZero();
        assertThat(limiter.admit("tls bad_certificate 10.0.0.1")).isZero();
    }

    @Test
    void keysBeyondTheBoundShareOneWindow() {
        for (int i = 0; i < WarningRateLimiter.MAX_KEYS; i++) {
            assertThat(limiter.admit("client " + i)).isZero();
        }

        assertThat(limiter.admit("one more client")).isZero();
        assertThat(limiter.admit("yet another client")).isEqualTo(-1);
    }

    @Test
    void forgetsQuietKeysOnceTheBoundIsReached() {
        for (int i = 0; i < WarningRateLimiter.MAX_KEYS; i++) {
            limiter.admit("client " + i);
        }
        advanceMillis(1000);

        assertThat(limiter.admit("new client")).isZero();
        assertThat(limiter.admit("another new client")).isZero();
    }

    @Test
    void refusesANonPositiveInterval() {
        assertThatThrownBy(() -> new WarningRateLimiter(0, now::get))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("intervalMillis");
    }

    private void advanceMillis(long millis) {
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
    }
}
