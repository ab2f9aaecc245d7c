package io.leasehold.broker.storage;

import io.leasehold.broker.topic.TopicMeta;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;

/**
 * Reads any partition from shared storage, whoever wrote it: the committed index from etcd,
 * then the committed bytes from the segment files. File reads run on the storage executor.
 */
public final class PartitionReader {

    private final PartitionIndexStore indexStore;
    private final SegmentReader segments;
    private final SegmentFiles files;
    private final Executor executor;

    public PartitionReader(PartitionIndexStore indexStore, SegmentReader segments, SegmentFiles files, Executor executor) {
        this.indexStore = indexStore;
        this.segments = segments;
        this.files = files;
        this.executor = executor;
    }

    /** The committed index, or empty when the partition does not exist. */
    public CompletableFuture<Optional<PartitionIndex>> index(TopicMeta topic, int partition) {
        return indexStore.read(topic.name(), partition);
    }

    /**
     * Batches from {@code offset} on, about {@code maxBytes}; empty records when {@code offset}
     * is the high watermark. The caller checks the offset range against the index first.
     */
    public CompletableFuture<ByteBuffer> read(TopicMeta topic, int partition, PartitionIndex index, long offset, int maxBytes) {
        if (offset >= index.nextOffset()) {
            return CompletableFuture.completedFuture(ByteBuffer.allocate(0));
        }
        return CompletableFuture.supplyAsync(() -> {
            try {
                return segments.read(files.partitionDir(topic, partition), index, offset, maxBytes);
            } catch (IOException e) {
                throw new CompletionException(new UncheckedIOException(
                        "reading " + topic.name() + "-" + partition + " at offset " + offset + " failed", e));
            }
        }, executor);
    }

    public CompletableFuture<Optional<RecordBatches.TimestampedOffset>> offsetForTimestamp(TopicMeta topic, int partition, PartitionIndex index, long timestamp) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return segments.offsetForTimestamp(files.partitionDir(topic, partition), index, timestamp);
            } catch (IOException e) {
                throw new CompletionException(new UncheckedIOException(
                        "searching " + topic.name() + "-" + partition + " for timestamp " + timestamp + " failed", e));
            }
        }, executor);
    }
}
