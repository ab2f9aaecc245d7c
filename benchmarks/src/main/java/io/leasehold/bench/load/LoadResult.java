package io.leasehold.bench.load;

import org.HdrHistogram.Histogram;

/**
 * What one measured load run saw: records and payload bytes completed inside the measurement
 * window and its length, the payload bytes moved over the whole run including warm-up (to
 * divide CPU time by), the latency histogram in microseconds (empty for consumers), the number
 * of failed records and the first failure's description (null if none).
 */
public record LoadResult(long records, long payloadBytes, double seconds, long totalPayloadBytes,
        Histogram latencyMicros, long errors, String firstError) {

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
