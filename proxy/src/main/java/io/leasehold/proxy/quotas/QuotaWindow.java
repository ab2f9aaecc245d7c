package io.leasehold.proxy.quotas;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Over how long a client's byte rate is measured: {@code samples} samples of {@code sampleLength}
 * each, Kafka's {@code quota.window.num} and {@code quota.window.size.seconds}. A longer window
 * lets a client burst more before it is throttled and throttles it for longer once it is.
 *
 * @param samples      at least 2
 * @param sampleLength positive
 */
public record QuotaWindow(int samples, Duration sampleLength) {

    /** Checks the bounds. */
    public QuotaWindow {
        if (samples < 2 || sampleLength.isZero() || sampleLength.isNegative()) {
            throw new IllegalArgumentException("a quota window needs at least 2 samples of positive length, got "
                    + samples + " of " + sampleLength);
        }
    }

    /** A meter of one quota entity's bytes over this window. */
    ByteRateMeter meter(LongSupplier nanoClock) {
        return new ByteRateMeter(samples, sampleLength.toNanos(), nanoClock);
    }
}
