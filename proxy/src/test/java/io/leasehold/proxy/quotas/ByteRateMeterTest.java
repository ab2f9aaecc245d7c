package io.leasehold.proxy.quotas;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Kafka's quota arithmetic on a hand-moved clock: rate over the window, and the throttle it asks for. */
class ByteRateMeterTest {
    private static final long SECOND = 1_000_000_000L;
    private final AtomicLong clock = new AtomicLong(5 * SECOND);
    private final ByteRateMeter meter = new ByteRateMeter(11, SECOND, clock::get);

    @Test
    void withinTheQuotaThereIsNoThrottle() {
        // 10 windows (the least Kafka divides by) of 1000 bytes a second, quota 1000.
        for (int second = 0; second < 10; second++) {
            assertThat(meter.recordAndThrottleMs(1000, 1000)).isZero();
            clock.addAndGet(SECOND);
        }
    }

    @Test
    void aBurstIsThrottledLongEnoughToBringTheWindowBackToTheQuota() {
        // 20000 bytes at once against 1000/s: the rate over Kafka's minimum window of 10 s is 2000/s,
        // (2000 - 1000) / 1000 * 10 s = 10 s of throttle, after which 20000 bytes over 20 s is the quota.
        assertThat(meter.recordAndThrottleMs(20_000, 1000)).isEqualTo(10_000);
        assertThat(meter.rate()).isEqualTo(2000.0);
    }

    @Test
    void theThrottleIsAtMostTheWholeWindow() {
        assertThat(meter.recordAndThrottleMs(1_000_000, 1000)).isEqualTo(11_000);
    }

    @Test
    void bytesOlderThanTheWindowNoLongerCount() {
        meter.recordAndThrottleMs(20_000, 1000);
        clock.addAndGet(11 * SECOND);

        assertThat(meter.recordAndThrottleMs(1000, 1000)).isZero();
        assertThat(meter.rate()).isEqualTo(100.0);
    }

    @Test
    void aTierShareDividesTheQuotaByTheLiveProxies() {
        AtomicLong live = new AtomicLong(2);
        TierShare share = new TierShare(() -> (int) live.get());
        assertThat(share.of(262144)).isEqualTo(131072.0);
        live.set(0);
        assertThat(share.of(262144)).as("knowing of no proxy, this one takes the whole quota").isEqualTo(262144.0);
    }
}
