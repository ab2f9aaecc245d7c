package io.leasehold.proxy.audit;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Decides which allowed reads and writes are written to the audit log: at most one per
 * principal and resource per interval. It remembers a bounded number of recent pairs (the least
 * recently written is forgotten first), so a client naming endless resources cannot grow it.
 */
public final class AllowedAccessSampler {
    private final long intervalNanos;
    private final LongSupplier nanoTime;
    private final Map<String, Long> lastWritten;

    /**
     * @param intervalNanos how long after a written line the same principal and resource are skipped
     * @param capacity      how many principal and resource pairs are remembered
     */
    public AllowedAccessSampler(long intervalNanos, int capacity, LongSupplier nanoTime) {
        this.intervalNanos = intervalNanos;
        this.nanoTime = nanoTime;
        this.lastWritten = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
                return size() > capacity;
            }
        };
    }

    /** Whether an allowed access of {@code principal} to {@code resource} is due a line now. */
    public synchronized boolean due(String principal, String resource) {
        long now = nanoTime.getAsLong();
        String key = principal + '\n' + resource;
        Long last = lastWritten.get(key);
        if (last != null && now - last < intervalNanos) {
            return false;
        }
        lastWritten.put(key, now);
        return true;
    }
}
