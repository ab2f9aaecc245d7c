package io.leasehold.routing.watch;

import io.leasehold.routing.keys.MetadataSnapshotBrokers;
import io.leasehold.routing.snapshot.BrokerAddress;
import io.leasehold.routing.snapshot.RoutingSnapshot;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies KafScale's metadata snapshot to a routing snapshot under construction. A snapshot that
 * cannot be read leaves the last good broker list in place, is counted, and is logged once per
 * etcd revision, however often a reload reads that same revision again. Used from the watcher's
 * thread only; the count may be read from any thread.
 */
final class MetadataSnapshotReader {

    private static final Logger LOG = LoggerFactory.getLogger(MetadataSnapshotReader.class);

    private final String key;
    private final AtomicLong rejected = new AtomicLong();
    private List<BrokerAddress> lastGood = List.of();
    private long lastRejectedRevision = -1;
    private boolean seenInLoad;

    MetadataSnapshotReader(String key) {
        this.key = key;
    }

    /** Whether {@code entryKey} is the metadata snapshot key. */
    boolean handles(String entryKey) {
        return key.equals(entryKey);
    }

    /** A full read of etcd starts. */
    void beginLoad() {
        seenInLoad = false;
    }

    /** A full read of etcd ended; if it did not contain the snapshot key, the key is gone. */
    void endLoad(RoutingSnapshot.Builder builder) {
        if (!seenInLoad) {
            delete(builder);
        }
    }

    /** A new value of the snapshot key, written at {@code modRevision}. */
    void put(RoutingSnapshot.Builder builder, String value, long modRevision) {
        seenInLoad = true;
        try {
            lastGood = MetadataSnapshotBrokers.parse(value);
        } catch (IllegalArgumentException e) {
            if (modRevision != lastRejectedRevision) {
                lastRejectedRevision = modRevision;
                rejected.incrementAndGet();
                LOG.warn("ignoring {} at etcd revision {} and keeping the last good broker list ({} brokers): {}", key,
                        modRevision, lastGood.size(), e.getMessage());
            }
        }
        builder.listedBrokers(lastGood);
    }

    /** The snapshot key was deleted: its brokers are no longer known from it. */
    void delete(RoutingSnapshot.Builder builder) {
        lastGood = List.of();
        builder.listedBrokers(lastGood);
    }

    /** How many distinct revisions of the snapshot could not be read. */
    long rejectedCount() {
        return rejected.get();
    }
}
