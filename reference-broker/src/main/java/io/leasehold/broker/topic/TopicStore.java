package io.leasehold.broker.topic;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.leasehold.broker.etcd.BrokerKeys;
import io.leasehold.broker.etcd.Etcd;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;

/**
 * Topics live in etcd so that every broker sees the same set. Reads always go to etcd: a topic
 * created or deleted through one broker is visible on every other broker at once.
 */
public final class TopicStore {

    private final Etcd etcd;
    private final BrokerKeys keys;

    public TopicStore(Etcd etcd, BrokerKeys keys) {
        this.etcd = etcd;
        this.keys = keys;
    }

    public CompletableFuture<Optional<TopicMeta>> find(String topic) {
        return etcd.get(keys.topicMetaKey(topic)).thenApply(value -> value.map(json -> TopicMeta.parse(topic, json)));
    }

    /** All topics, by name. */
    public CompletableFuture<Map<String, TopicMeta>> all() {
        return etcd.getPrefix(keys.topicsPrefix()).thenApply(entries -> {
            Map<String, TopicMeta> topics = new LinkedHashMap<>();
            entries.forEach((key, value) -> {
                String topic = keys.topicOfMetaKey(key);
                if (topic != null) {
                    topics.put(topic, TopicMeta.parse(topic, value));
                }
            });
            return topics;
        });
    }

    /**
     * Creates the topic and its partitions' next offsets in one transaction.
     *
     * @return the created topic, or empty if a topic of that name already exists
     */
    public CompletableFuture<Optional<TopicMeta>> create(String topic, int partitions) {
        TopicMeta meta = new TopicMeta(topic, Uuid.randomUuid(), partitions);
        Map<String, String> puts = new LinkedHashMap<>();
        puts.put(keys.topicMetaKey(topic), meta.toJson());
        for (int partition = 0; partition < partitions; partition++) {
            puts.put(keys.nextOffsetKey(topic, partition), "0");
        }
        ByteSequence metaKey = Etcd.bytes(keys.topicMetaKey(topic));
        return etcd.kv().txn()
                .If(new Cmp(metaKey, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                .Then(Etcd.putOps(puts))
                .commit()
                .thenApply(response -> response.isSucceeded() ? Optional.of(meta) : Optional.empty());
    }

    /**
     * Raises the topic's partition count to {@code total}, giving each new partition its next
     * offset, in one transaction that holds only if the topic's metadata is still {@code current}.
     *
     * @return false when the topic changed (or went) since {@code current} was read
     */
    public CompletableFuture<Boolean> addPartitions(TopicMeta current, int total) {
        TopicMeta grown = new TopicMeta(current.name(), current.topicId(), total);
        Map<String, String> puts = new LinkedHashMap<>();
        puts.put(keys.topicMetaKey(current.name()), grown.toJson());
        for (int partition = current.partitions(); partition < total; partition++) {
            puts.put(keys.nextOffsetKey(current.name(), partition), "0");
        }
        ByteSequence metaKey = Etcd.bytes(keys.topicMetaKey(current.name()));
        return etcd.kv().txn()
                .If(new Cmp(metaKey, Cmp.Op.EQUAL, CmpTarget.value(Etcd.bytes(current.toJson()))))
                .Then(Etcd.putOps(puts))
                .commit()
                .thenApply(response -> response.isSucceeded());
    }

    /** The topic's config overrides, by name; empty when it has none. */
    public CompletableFuture<Map<String, String>> configs(String topic) {
        return etcd.get(keys.topicConfigsKey(topic)).thenApply(value -> value.map(TopicConfigs::parse).orElse(Map.of()));
    }

    /**
     * Replaces the topic's config overrides with {@code configs}, as AlterConfigs does, if the
     * topic exists.
     *
     * @return false when there is no such topic
     */
    public CompletableFuture<Boolean> replaceConfigs(String topic, Map<String, String> configs) {
        ByteSequence metaKey = Etcd.bytes(keys.topicMetaKey(topic));
        return etcd.kv().txn()
                .If(new Cmp(metaKey, Cmp.Op.GREATER, CmpTarget.createRevision(0)))
                .Then(Etcd.putOps(Map.of(keys.topicConfigsKey(topic), TopicConfigs.toJson(configs))))
                .commit()
                .thenApply(response -> response.isSucceeded());
    }

    /**
     * Deletes the topic with its offsets, segment index, producer state and partition leases in
     * one transaction. Deleting the lease keys makes their owners drop their writers at once.
     *
     * @return whether the topic existed
     */
    public CompletableFuture<Boolean> delete(String topic) {
        ByteSequence metaKey = Etcd.bytes(keys.topicMetaKey(topic));
        List<Op> deletes = new ArrayList<>();
        deletes.add(Etcd.deletePrefixOp(keys.topicPrefix(topic)));
        deletes.add(Etcd.deletePrefixOp(keys.segmentsPrefix(topic)));
        deletes.add(Etcd.deletePrefixOp(keys.producersPrefix(topic)));
        deletes.add(Etcd.deletePrefixOp(keys.partitionLeasesPrefix(topic)));
        return etcd.kv().txn()
                .If(new Cmp(metaKey, Cmp.Op.GREATER, CmpTarget.createRevision(0)))
                .Then(deletes.toArray(Op[]::new))
                .commit()
                .thenApply(response -> response.isSucceeded());
    }
}
