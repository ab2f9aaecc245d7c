package io.leasehold.proxy.faults;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What one reader got during a failover run: every record value with its partition and the wall
 * clock time it was read. Values are {@link #value written by a writer}, so the time each record
 * was sent can be read back from it.
 */
final class ReadLog {

    /** One record read. */
    record Read(String value, int partition, long readAtMillis) {
        long sentAtMillis() {
            return sentAt(value);
        }
    }

    private final String reader;
    private final List<Read> reads = new CopyOnWriteArrayList<>();

    ReadLog(String reader) {
        this.reader = reader;
    }

    /** A record value for writer {@code writer}'s {@code seq}-th record, sent now. */
    static String value(String writer, long seq) {
        return writer + "-" + seq + "-" + System.currentTimeMillis();
    }

    static long sentAt(String value) {
        return Long.parseLong(value.substring(value.lastIndexOf('-') + 1));
    }

    String reader() {
        return reader;
    }

    void read(String value, int partition, long readAtMillis) {
        reads.add(new Read(value, partition, readAtMillis));
    }

    int count() {
        return reads.size();
    }

    Set<String> values() {
        Set<String> values = new HashSet<>();
        reads.forEach(r -> values.add(r.value()));
        return values;
    }

    /** Records read more than once (a re-read after a rebalance, or a producer's duplicate). */
    long duplicates() {
        return reads.size() - values().size();
    }

    /** Which of {@code wanted} this reader has not read. */
    Set<String> missing(Collection<String> wanted) {
        Set<String> missing = new HashSet<>(wanted);
        missing.removeAll(values());
        return missing;
    }

    /** The longest time between two successive reads within [from, to] (wall clock ms). */
    long longestStallMillis(long fromMillis, long toMillis) {
        List<Long> times = new ArrayList<>();
        reads.forEach(r -> times.add(r.readAtMillis()));
        times.sort(null);
        long previous = fromMillis;
        long longest = 0;
        for (long t : times) {
            if (t < fromMillis) {
                continue;
            }
            long until = Math.min(t, toMillis);
            longest = Math.max(longest, until - previous);
            previous = until;
            if (t >= toMillis) {
                return longest;
            }
        }
        return Math.max(longest, toMillis - previous);
    }

    /**
     * How long after {@code faultAtMillis} the reader read, from every one of {@code partitions},
     * a record sent after the fault: when reading the fault's partitions had resumed. -1 if it
     * never did.
     */
    long resumedAfterMillis(long faultAtMillis, Set<Integer> partitions) {
        Map<Integer, Long> first = new HashMap<>();
        for (Read r : reads) {
            if (partitions.contains(r.partition()) && r.sentAtMillis() >= faultAtMillis) {
                first.merge(r.partition(), r.readAtMillis(), Math::min);
            }
        }
        if (!first.keySet().containsAll(partitions)) {
            return -1;
        }
        return first.values().stream().mapToLong(Long::longValue).max().orElse(faultAtMillis) - faultAtMillis;
    }
}
