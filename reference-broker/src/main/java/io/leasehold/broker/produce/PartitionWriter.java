package io.leasehold.broker.produce;

import io.leasehold.broker.ownership.WriteAccess;
import io.leasehold.broker.storage.RecordBatches;
import io.leasehold.broker.storage.RecordBatches.BatchInfo;
import io.leasehold.broker.storage.RecordBatches.ValidatedRecords;
import io.leasehold.broker.storage.SegmentAppender;
import io.leasehold.broker.storage.SegmentRef;
import io.leasehold.broker.topic.TopicMeta;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes one partition while this broker holds the right to: assigns offsets from a local
 * counter that starts at the committed next offset, appends batches to this ownership's segment
 * file, and commits next offset, segment extent and producer state to etcd through the guard.
 * Appends queued while a commit is in flight are written and committed together. Answers come
 * only after the commit. Once revoked it writes nothing more.
 */
final class PartitionWriter {

    private static final Logger LOG = LoggerFactory.getLogger(PartitionWriter.class);

    private final TopicMeta topic;
    private final int partition;
    private final WriteAccess.Granted grant;
    private final Path directory;
    private final ProducerStates producers;
    private final long logStartOffset;
    private final WriterResources shared;

    private final ArrayDeque<PendingAppend> queue = new ArrayDeque<>();
    private final List<CompletableFuture<Void>> idleWaiters = new ArrayList<>();
    private boolean draining;
    private volatile boolean revoked;
    private SegmentAppender segment;
    private long nextOffset;

    private record PendingAppend(ValidatedRecords records, CompletableFuture<AppendOutcome> result) {
    }

    private record Written(PendingAppend append, AppendOutcome outcome) {
    }

    PartitionWriter(TopicMeta topic, int partition, WriteAccess.Granted grant, long nextOffset, long logStartOffset,
                    ProducerStates producers, Path directory, WriterResources shared) {
        this.topic = topic;
        this.partition = partition;
        this.grant = grant;
        this.nextOffset = nextOffset;
        this.logStartOffset = logStartOffset;
        this.producers = producers;
        this.directory = directory;
        this.shared = shared;
    }

    TopicMeta topic() {
        return topic;
    }

    WriteAccess.Granted grant() {
        return grant;
    }

    boolean isRevoked() {
        return revoked;
    }

    CompletableFuture<AppendOutcome> append(ValidatedRecords records) {
        PendingAppend pending = new PendingAppend(records, new CompletableFuture<>());
        boolean start;
        synchronized (this) {
            if (revoked) {
                return CompletableFuture.completedFuture(notOwner());
            }
            queue.add(pending);
            start = !draining;
            draining = true;
        }
        if (start) {
            shared.executor().execute(this::drain);
        }
        return pending.result();
    }

    /** Stops all writing at once: queued appends fail, an in-flight commit is fenced by etcd. */
    void revoke() {
        List<PendingAppend> dropped;
        boolean idle;
        synchronized (this) {
            if (revoked) {
                return;
            }
            revoked = true;
            dropped = new ArrayList<>(queue);
            queue.clear();
            idle = !draining;
        }
        if (idle) {
            closeSegmentIfRevoked();
        }
        dropped.forEach(pending -> pending.result().complete(notOwner()));
        LOG.info("stopped writing {}-{} (ownership {} ended)", topic.name(), partition, grant.writerTag());
    }

    /** Completes when no append is queued or being committed. */
    CompletableFuture<Void> whenIdle() {
        synchronized (this) {
            if (!draining) {
                return CompletableFuture.completedFuture(null);
            }
            CompletableFuture<Void> idle = new CompletableFuture<>();
            idleWaiters.add(idle);
            return idle;
        }
    }

    private void drain() {
        List<PendingAppend> batch;
        synchronized (this) {
            batch = new ArrayList<>(queue);
            queue.clear();
        }
        if (batch.isEmpty() || revoked) {
            batch.forEach(pending -> pending.result().complete(notOwner()));
            finishCycle();
            return;
        }
        List<Written> written = new ArrayList<>();
        try {
            if (segment == null) {
                segment = SegmentAppender.create(directory, nextOffset, grant.writerTag());
            }
            for (PendingAppend pending : batch) {
                written.add(new Written(pending, write(pending.records())));
            }
        } catch (IOException e) {
            LOG.error("writing {}-{} to {} failed", topic.name(), partition, directory, e);
            revoke();
            AppendOutcome failed = AppendOutcome.failed(Errors.KAFKA_STORAGE_ERROR, "segment write failed: " + e.getMessage());
            batch.forEach(pending -> pending.result().complete(failed));
            finishCycle();
            return;
        }
        commit(written).whenComplete((ignored, error) -> finishCycle());
    }

    private AppendOutcome write(ValidatedRecords records) throws IOException {
        List<BatchInfo> batches = records.batches();
        for (BatchInfo info : batches) {
            ProducerStates.Check check = producers.check(info);
            if (check instanceof ProducerStates.Check.Duplicate duplicate) {
                return AppendOutcome.appended(duplicate.firstOffset(), logStartOffset);
            }
            if (check instanceof ProducerStates.Check.Reject reject) {
                // Clients retry these silently, so only the broker's log shows batches that arrived out of order.
                LOG.warn("refused a batch for {}-{}: {}, {}", topic.name(), partition, reject.error(), reject.message());
                return AppendOutcome.failed(reject.error(), reject.message());
            }
        }
        long baseOffset = nextOffset;
        long offset = baseOffset;
        for (BatchInfo info : batches) {
            producers.appended(info, offset);
            offset += info.recordCount();
        }
        nextOffset = RecordBatches.assignOffsets(records.buffer(), baseOffset);
        segment.append(records.buffer());
        return AppendOutcome.appended(baseOffset, logStartOffset);
    }

    private CompletableFuture<Void> commit(List<Written> written) {
        SegmentRef extent = new SegmentRef(segment.fileName(), segment.baseOffset(), nextOffset, segment.size());
        Map<String, String> puts = new LinkedHashMap<>();
        shared.indexStore().addCommitPuts(topic.name(), partition, extent, nextOffset, puts);
        producers.drainChanges().forEach((producerId, json) ->
                puts.put(shared.keys().producerKey(topic.name(), partition, producerId), json));
        return shared.guard().commit(grant, puts).handle((committed, error) -> {
            if (error != null) {
                LOG.warn("commit of {}-{} failed; its outcome is unknown, so this writer stops and gives up its epoch",
                        topic.name(), partition, error);
                revoke();
                shared.guard().abandon(grant).whenComplete((released, releaseError) -> {
                    if (releaseError != null) {
                        LOG.warn("releasing the abandoned ownership of {}-{} failed; the next claim releases it first",
                                topic.name(), partition, releaseError);
                    }
                });
                written.forEach(w -> w.append().result().complete(AppendOutcome.failed(Errors.REQUEST_TIMED_OUT,
                        "committing to etcd failed: " + error.getMessage())));
            } else if (!committed) {
                LOG.warn("fenced commit of {}-{} refused: ownership {} ended", topic.name(), partition, grant.writerTag());
                revoke();
                written.forEach(w -> w.append().result().complete(notOwner()));
            } else {
                written.forEach(w -> w.append().result().complete(w.outcome()));
                shared.signals().committed(topic.name(), partition);
                rollIfFull();
            }
            return null;
        });
    }

    private void rollIfFull() {
        if (segment.size() < shared.segmentBytes()) {
            return;
        }
        try {
            segment.close();
        } catch (IOException e) {
            LOG.warn("closing full segment {} failed", segment.fileName(), e);
        }
        segment = null;
    }

    private void finishCycle() {
        boolean again;
        List<CompletableFuture<Void>> idle = List.of();
        synchronized (this) {
            again = !queue.isEmpty() && !revoked;
            draining = again;
            if (!again) {
                idle = new ArrayList<>(idleWaiters);
                idleWaiters.clear();
            }
        }
        if (again) {
            shared.executor().execute(this::drain);
        } else {
            closeSegmentIfRevoked();
            idle.forEach(waiter -> waiter.complete(null));
        }
    }

    private synchronized void closeSegmentIfRevoked() {
        if (revoked && segment != null) {
            try {
                segment.close();
            } catch (IOException e) {
                LOG.warn("closing segment {} failed", segment.fileName(), e);
            }
            segment = null;
        }
    }

    private AppendOutcome notOwner() {
        return AppendOutcome.failed(Errors.NOT_LEADER_OR_FOLLOWER,
                "broker no longer owns " + topic.name() + "-" + partition);
    }
}
