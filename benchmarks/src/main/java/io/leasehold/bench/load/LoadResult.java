package io.leasehold.bench.load;

import org.HdrHistogram.Histogram;

/**
 * What one measured load run saw: records and payload bytes completed inside the measurement
 * window and its length, the payload bytes moved over the whole run including warm-up (to
 * divide CPU time by), the latency histogram in microseconds (empty for consumers) and failures.
 */
public record LoadResult(long records, long payloadBytes, double seconds, long totalPayloadBytes,
        Histogram latencyMicros, long errors) {

    public double megabytesPerSecond() {
        return payloadBytes / seconds / 1_000_000.0;
    }

    public double recordsPerSecond() {
        return records / seconds;
    }

    public boolean hasLatency() {
        return latencyMicros.getTotalCount() > 0;
    }

    /** Latency at {@code percentile} (0..100) in milliseconds. */
    public double latencyMillis(double percentile) {
        return latencyMicros.getValueAtPercentile(percentile) / 1000.0;
    }
}
