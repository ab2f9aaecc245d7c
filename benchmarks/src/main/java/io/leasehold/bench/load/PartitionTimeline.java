package io.leasehold.bench.load;

import java.util.Collection;

/**
 * Records per partition in 100 ms buckets from a start time, written by one thread. Timelines of
 * several threads are added up after those threads have finished.
 */
final class PartitionTimeline {

    private static final long BUCKET_NANOS = 100_000_000L;

    private final long startNanos;
    private final long[][] counts;

    PartitionTimeline(long startNanos, int partitions, long spanNanos) {
        this.startNanos = startNanos;
        this.counts = new long[partitions][(int) (spanNanos / BUCKET_NANOS) + 1];
    }

    void record(int partition, long nanos) {
        long bucket = (nanos - startNanos) / BUCKET_NANOS;
        if (bucket >= 0 && bucket < counts[partition].length) {
            counts[partition][(int) bucket]++;
        }
    }

    void add(PartitionTimeline other) {
        for (int p = 0; p < counts.length; p++) {
            for (int b = 0; b < counts[p].length; b++) {
                counts[p][b] += other.counts[p][b];
            }
        }
    }

    /** Records per second of {@code partitions} in the whole buckets between two instants. */
    double rate(Collection<Integer> partitions, long fromNanos, long toNanos) {
        int from = (int) Math.max(0, (fromNanos - startNanos + BUCKET_NANOS - 1) / BUCKET_NANOS);
        int to = (int) Math.min(counts[0].length, (toNanos - startNanos) / BUCKET_NANOS);
        if (to <= from) {
            return Double.NaN;
        }
        long total = 0;
        for (int partition : partitions) {
            for (int b = from; b < to; b++) {
                total += counts[partition][b];
            }
        }
        return total / ((to - from) * (BUCKET_NANOS / 1e9));
    }
}
