package io.leasehold.proxy.quotas;

import java.util.function.LongSupplier;

/**
 * Measures one quota entity's bytes a second and says how long its client must wait, with
 * Kafka's client quota arithmetic: the rate is the bytes of the last {@code samples} windows of
 * {@code sampleNanos} each (Kafka's {@code quota.window.num} and {@code quota.window.size.seconds},
 * 11 and 1 s by default) over the time they span, and a client above its quota is throttled for
 * {@code (rate - quota) / quota * window}: long enough that, had it sent nothing meanwhile, its
 * rate over the window would be back at the quota. The throttle is at most the whole window.
 * Thread-safe.
 */
public final class ByteRateMeter {
    private static final long NANOS_PER_MILLI = 1_000_000L;
    private static final double NANOS_PER_SECOND = 1e9;

    private final long sampleNanos;
    private final long[] sampleStart;
    private final long[] sampleBytes;
    private final LongSupplier nanoClock;
    private final long createdAt;
    private int current;

    public ByteRateMeter(int samples, long sampleNanos, LongSupplier nanoClock) {
        if (samples < 2 || sampleNanos <= 0) {
            throw new IllegalArgumentException("need at least 2 samples of positive length");
        }
        this.sampleNanos = sampleNanos;
        this.sampleStart = new long[samples];
        this.sampleBytes = new long[samples];
        this.nanoClock = nanoClock;
        this.createdAt = nanoClock.getAsLong();
        this.sampleStart[0] = createdAt;
        for (int i = 1; i < samples; i++) {
            // Older than any window: such a sample counts nothing until it is reused.
            sampleStart[i] = createdAt - (long) samples * sampleNanos;
        }
    }

    /**
     * Counts {@code bytes} now and returns the milliseconds the client must then wait to stay
     * within {@code quota} bytes a second (0 when it is within it).
     */
    public synchronized long recordAndThrottleMs(long bytes, double quota) {
        long now = nanoClock.getAsLong();
        advance(now);
        sampleBytes[current] += bytes;
        return throttleMs(now, quota);
    }

    /** The measured bytes a second now. */
    public synchronized double rate() {
        long now = nanoClock.getAsLong();
        advance(now);
        return total(now) / (windowNanos(now) / NANOS_PER_SECOND);
    }

    private long throttleMs(long now, double quota) {
        double window = windowNanos(now);
        double rate = total(now) / (window / NANOS_PER_SECOND);
        if (rate <= quota) {
            return 0;
        }
        double throttleNanos = Math.min((rate - quota) / quota * window, (double) sampleStart.length * sampleNanos);
        return (long) Math.ceil(throttleNanos / NANOS_PER_MILLI);
    }

    /** Starts a new sample when the current one is over, reusing the oldest. */
    private void advance(long now) {
        if (now - sampleStart[current] >= sampleNanos) {
            current = (current + 1) % sampleStart.length;
            sampleStart[current] = now;
            sampleBytes[current] = 0;
        }
    }

    private long total(long now) {
        long sum = 0;
        for (int i = 0; i < sampleStart.length; i++) {
            if (!expired(i, now)) {
                sum += sampleBytes[i];
            }
        }
        return sum;
    }

    private boolean expired(int sample, long now) {
        return now - sampleStart[sample] >= (long) sampleStart.length * sampleNanos;
    }

    /**
     * The time the live samples span, but at least all samples but one, as Kafka's rate does:
     * a burst in the first moments is not divided by almost no time.
     */
    private double windowNanos(long now) {
        long oldest = now;
        for (int i = 0; i < sampleStart.length; i++) {
            if (!expired(i, now) && sampleStart[i] < oldest) {
                oldest = sampleStart[i];
            }
        }
        return Math.max(now - oldest, (long) (sampleStart.length - 1) * sampleNanos);
    }
}
