package io.leasehold.bench.load;

import java.time.Duration;

/** How long a load run warms up before measuring, and how long it measures. */
public record Timing(Duration warmup, Duration measure) {

    public Timing {
        if (warmup.isNegative() || measure.isZero() || measure.isNegative()) {
            throw new IllegalArgumentException("warm-up must be >= 0 and measurement > 0: " + warmup + ", " + measure);
        }
    }
}
