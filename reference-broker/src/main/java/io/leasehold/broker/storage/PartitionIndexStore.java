package io.leasehold.broker.storage;

import io.etcd.jetcd.kv.GetResponse;
import io.leasehold.broker.etcd.BrokerKeys;
import io.leasehold.broker.etcd.Etcd;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Reads a partition's committed next offset and segment index from etcd, and builds the puts
 * that commit them. Every read goes to etcd, so data another broker committed is seen at once.
 */
public final class PartitionIndexStore {

    private final Etcd etcd;
    private final BrokerKeys keys;

    public PartitionIndexStore(Etcd etcd, BrokerKeys keys) {
        this.etcd = etcd;
        this.keys = keys;
    }

    /** The partition's index, or empty when its next offset key does not exist (no such topic or partition). */
    public CompletableFuture<Optional<PartitionIndex>> read(String topic, int partition) {
        return etcd.kv().txn()
                .Then(Etcd.getOp(keys.nextOffsetKey(topic, partition)),
                        Etcd.getPrefixOp(keys.segmentsPrefix(topic, partition)))
                .commit()
                .thenApply(response -> {
                    List<GetResponse> gets = response.getGetResponses();
                    if (gets.get(0).getKvs().isEmpty()) {
                        return Optional.empty();
                    }
                    String nextOffsetKey = keys.nextOffsetKey(topic, partition);
                    long nextOffset = parseOffset(nextOffsetKey, Etcd.text(gets.get(0).getKvs().get(0).getValue()));
                    List<SegmentRef> segments = new ArrayList<>();
                    Etcd.toMap(gets.get(1).getKvs()).forEach((key, value) -> segments.add(SegmentRef.parse(key, value)));
                    segments.sort(Comparator.comparingLong(SegmentRef::baseOffset));
                    return Optional.of(new PartitionIndex(nextOffset, segments));
                });
    }

    /** The next offset alone, or empty when the key does not exist. */
    public CompletableFuture<Optional<Long>> readNextOffset(String topic, int partition) {
        String key = keys.nextOffsetKey(topic, partition);
        return etcd.get(key).thenApply(value -> value.map(text -> parseOffset(key, text)));
    }

    /** The puts that record a segment's committed extent and the partition's next offset. */
    public void addCommitPuts(String topic, int partition, SegmentRef segment, long nextOffset, Map<String, String> puts) {
        puts.put(keys.nextOffsetKey(topic, partition), Long.toString(nextOffset));
        puts.put(keys.segmentKey(topic, partition, segment.baseOffset()), segment.toJson());
    }

    private static long parseOffset(String key, String text) {
        try {
            long offset = Long.parseLong(text.trim());
            if (offset < 0) {
                throw new IllegalStateException(key + " holds a negative offset: " + text);
            }
            return offset;
        } catch (NumberFormatException e) {
            throw new IllegalStateException(key + " does not hold a decimal offset: '" + text + "'", e);
        }
    }
}
