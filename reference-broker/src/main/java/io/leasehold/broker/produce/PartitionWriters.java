package io.leasehold.broker.produce;

import io.leasehold.broker.etcd.BrokerKeys;
import io.leasehold.broker.etcd.Etcd;
import io.leasehold.broker.ownership.PartitionWriteGuard;
import io.leasehold.broker.ownership.WriteAccess;
import io.leasehold.broker.storage.CommitSignals;
import io.leasehold.broker.storage.PartitionIndexStore;
import io.leasehold.broker.storage.RecordBatches.ValidatedRecords;
import io.leasehold.broker.storage.SegmentFiles;
import io.leasehold.broker.topic.TopicMeta;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.protocol.Errors;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
/**
 * The partitions this broker is writing. A partition's writer is opened on its first produce:
 * acquire the right to write (claim), then read the committed next offset and producer state
 * once, and count from there. Revocations from the guard stop the matching writer at once.
 */
public final class PartitionWriters implements PartitionWriteGuard.RevocationListener {

    private final WriterResources shared;
    private final Etcd etcd;
    private final SegmentFiles files;
    private static final Logger LOG = LoggerFactory.getLogger(PartitionWriters.class);

    private final ConcurrentMap<PartitionKey, CompletableFuture<Opened>> writers = new ConcurrentHashMap<>();
    private final EtcdTrouble etcdTrouble;

    private record PartitionKey(String topic, int partition) {
    }

    /** A writer, or the broker that owns the partition instead. */
    private record Opened(PartitionWriter writer, int otherOwner) {
    }

    /** @param etcdTrouble how to answer when claiming a partition or reading its state from etcd fails */
    public PartitionWriters(PartitionWriteGuard guard, PartitionIndexStore indexStore, Etcd etcd, BrokerKeys keys,
                            SegmentFiles files, Executor executor, long segmentBytes, CommitSignals signals,
                            EtcdTrouble etcdTrouble) {
        this.etcdTrouble = etcdTrouble;
        this.shared = new WriterResources(guard, indexStore, keys, executor, segmentBytes, signals);
        this.etcd = etcd;
        this.files = files;
        guard.addRevocationListener(this);
    }

    /** Appends one partition's validated records of a produce request. */
    public CompletableFuture<AppendOutcome> append(TopicMeta topic, int partition, ValidatedRecords records) {
        PartitionKey key = new PartitionKey(topic.name(), partition);
        CompletableFuture<Opened> opening = writers.computeIfAbsent(key, k -> open(topic, partition)
                .orTimeout(etcdTrouble.timeout().toMillis(), TimeUnit.MILLISECONDS));
        return opening.handle((opened, error) -> {
            if (error != null) {
                // Claiming or reading the committed state failed, so certainly nothing was written.
                writers.remove(key, opening);
                return CompletableFuture.completedFuture(AppendOutcome.failed(etcdTrouble.claimFailed(),
                        "could not take " + key.topic() + "-" + partition + " for writing: " + error.getMessage()));
            }
            if (opened.writer() == null) {
                writers.remove(key, opening);
                return CompletableFuture.completedFuture(AppendOutcome.failed(Errors.NOT_LEADER_OR_FOLLOWER,
                        key.topic() + "-" + partition + " is owned by broker " + opened.otherOwner()));
            }
            PartitionWriter writer = opened.writer();
            if (writer.isRevoked() || !writer.topic().topicId().equals(topic.topicId())) {
                writer.revoke();
                writers.remove(key, opening);
                return append(topic, partition, records);
            }
            return writer.append(records);
        }).thenCompose(result -> result);
    }

    /** Waits for every queued append to be committed or failed. */
    public CompletableFuture<Void> whenIdle() {
        List<CompletableFuture<Void>> idle = writers.values().stream()
                .map(opening -> opening.handle((opened, error) ->
                        opened == null || opened.writer() == null ? CompletableFuture.<Void>completedFuture(null)
                                : opened.writer().whenIdle())
                        .thenCompose(f -> f))
                .toList();
        return CompletableFuture.allOf(idle.toArray(CompletableFuture[]::new));
    }

    @Override
    public void revoked(String topic, int partition, long claimEpoch) {
        PartitionKey key = new PartitionKey(topic, partition);
        CompletableFuture<Opened> opening = writers.get(key);
        if (opening == null) {
            return;
        }
        Opened opened = opening.getNow(null);
        if (opened != null && opened.writer() != null && opened.writer().grant().claim() != null
                && opened.writer().grant().claim().epoch() == claimEpoch) {
            opened.writer().revoke();
            writers.remove(key, opening);
        }
    }

    @Override
    public void revokedAll() {
        writers.forEach((key, opening) -> {
            Opened opened = opening.getNow(null);
            if (opened != null && opened.writer() != null) {
                opened.writer().revoke();
            }
            writers.remove(key, opening);
        });
    }

    private CompletableFuture<Opened> open(TopicMeta topic, int partition) {
        return shared.guard().acquire(topic.name(), partition).thenCompose(access -> {
            if (access instanceof WriteAccess.Refused refused) {
                return CompletableFuture.completedFuture(new Opened(null, refused.ownerBrokerId()));
            }
            WriteAccess.Granted grant = (WriteAccess.Granted) access;
            String producersPrefix = shared.keys().producersPrefix(topic.name(), partition);
            CompletableFuture<Opened> opened = shared.indexStore().read(topic.name(), partition)
                    .thenCombine(etcd.getPrefix(producersPrefix), (index, producerValues) -> {
                        if (index.isEmpty()) {
                            throw new IllegalStateException("partition " + topic.name() + "-" + partition
                                    + " has no next offset in etcd; was the topic deleted?");
                        }
                        ProducerStates producers = new ProducerStates();
                        producerValues.forEach((key, json) -> producerId(producersPrefix, key)
                                .ifPresent(id -> producers.load(id, json)));
                        PartitionWriter writer = new PartitionWriter(topic, partition, grant,
                                index.get().nextOffset(), index.get().logStartOffset(), producers,
                                files.partitionDir(topic, partition), shared);
                        return new Opened(writer, -1);
                    });
            return opened.handle((writer, error) -> error == null ? opened : giveUp(grant, error))
                    .thenCompose(f -> f);
        });
    }

    /**
     * A won partition this broker cannot write after all: it gives the key up before answering
     * NOT_LEADER_OR_FOLLOWER, as the ownership contract asks, so proxies and other brokers are
     * not told "not mine" by the broker etcd names as the owner.
     */
    private CompletableFuture<Opened> giveUp(WriteAccess.Granted grant, Throwable error) {
        return shared.guard().abandon(grant).handle((released, releaseError) -> {
            if (releaseError != null) {
                LOG.warn("could not give up {}-{} after failing to open it: {}", grant.topic(), grant.partition(),
                        releaseError.toString());
            }
            return CompletableFuture.<Opened>failedFuture(error);
        }).thenCompose(f -> f);
    }

    private static OptionalLong producerId(String prefix, String key) {
        String suffix = key.substring(prefix.length());
        try {
            return OptionalLong.of(Long.parseLong(suffix));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }
}
