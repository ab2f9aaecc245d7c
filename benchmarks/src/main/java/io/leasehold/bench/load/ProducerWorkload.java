package io.leasehold.bench.load;

/**
 * One produce configuration: how many producers, how large each record is, the producers'
 * {@code acks} and {@code linger.ms}, and an optional total send rate (0 = as fast as possible).
 */
public record ProducerWorkload(int producers, int recordBytes, String acks, int lingerMs, double recordsPerSecond) {

    public ProducerWorkload {
        if (producers < 1 || recordBytes < 1 || lingerMs < 0 || recordsPerSecond < 0) {
            throw new IllegalArgumentException("invalid producer workload: producers=" + producers
                    + " recordBytes=" + recordBytes + " lingerMs=" + lingerMs + " rate=" + recordsPerSecond);
        }
        if (!acks.equals("0") && !acks.equals("1") && !acks.equals("all")) {
            throw new IllegalArgumentException("acks must be 0, 1 or all, was " + acks);
        }
    }

    /** The same workload limited to {@code rate} records per second in total. */
    public ProducerWorkload atRate(double rate) {
        return new ProducerWorkload(producers, recordBytes, acks, lingerMs, rate);
    }

    public boolean rateLimited() {
        return recordsPerSecond > 0;
    }

    /** A short human-readable name used in tables, e.g. {@code 1 KiB x4 acks=1 linger=5}. */
    public String label() {
        String base = Sizes.label(recordBytes) + " x" + producers + " acks=" + acks + " linger=" + lingerMs;
        return rateLimited() ? base + " @" + Math.round(recordsPerSecond) + " rec/s" : base;
    }
}
