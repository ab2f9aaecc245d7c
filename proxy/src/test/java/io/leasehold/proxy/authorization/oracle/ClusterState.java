package io.leasehold.proxy.authorization.oracle;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;

/**
 * What a mutating request can change, read through the broker's plaintext listener as a super
 * user: which topics exist and with how many partitions, each partition's log end offset, the
 * topics' retention, and both groups' committed offsets. {@link #restore} puts the groups'
 * offsets back, so that the direct and the proxied send of a pair start from the same state.
 */
final class ClusterState {
    /** Topics that exist from the start; the others are created or deleted only if a request leaks through validateOnly. */
    static final List<String> TOPICS = List.of("orders", "orders.eu", "secret.x");
    private static final Set<String> WATCHED_NAMES = Set.of("orders", "orders.eu", "secret.x", "orders.new",
            "secret.new", "orders.gone", "secret.gone", "orders.absent");
    private static final Map<TopicPartition, OffsetAndMetadata> GROUP_OFFSETS = Map.of(
            new TopicPartition("orders", 0), new OffsetAndMetadata(1), new TopicPartition("secret.x", 0),
            new OffsetAndMetadata(1));

    private final Admin admin;

    ClusterState(Admin admin) {
        this.admin = admin;
    }

    /** Commits both groups' offsets (offset 1 on orders-0 and secret.x-0), recreating a deleted group. */
    void restore() throws Exception {
        for (String group : List.of(RequestCorpus.GROUP, RequestCorpus.OTHER_GROUP)) {
            admin.alterConsumerGroupOffsets(group, GROUP_OFFSETS).all().get(30, TimeUnit.SECONDS);
        }
    }

    /** Everything watched, as {@code what -> number}: absent things are simply not there. */
    Map<String, Long> snapshot() throws Exception {
        Map<String, Long> state = new TreeMap<>();
        Set<String> present = admin.listTopics().names().get(30, TimeUnit.SECONDS).stream()
                .filter(WATCHED_NAMES::contains).collect(Collectors.toSet());
        Map<String, TopicDescription> described = admin.describeTopics(present).allTopicNames()
                .get(30, TimeUnit.SECONDS);
        described.forEach((name, description) -> state.put("partitions:" + name,
                (long) description.partitions().size()));
        Map<TopicPartition, OffsetSpec> ends = described.values().stream()
                .flatMap(d -> d.partitions().stream().map(p -> new TopicPartition(d.name(), p.partition())))
                .collect(Collectors.toMap(tp -> tp, tp -> OffsetSpec.latest()));
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> offsets = admin.listOffsets(ends).all()
                .get(30, TimeUnit.SECONDS);
        offsets.forEach((tp, info) -> state.put("end:" + tp, info.offset()));
        List<ConfigResource> configs = present.stream()
                .map(name -> new ConfigResource(ConfigResource.Type.TOPIC, name)).toList();
        Map<ConfigResource, Config> values = admin.describeConfigs(configs).all().get(30, TimeUnit.SECONDS);
        values.forEach((resource, config) -> state.put("retention.ms:" + resource.name(),
                Long.parseLong(config.get("retention.ms").value())));
        for (String group : List.of(RequestCorpus.GROUP, RequestCorpus.OTHER_GROUP)) {
            admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS)
                    .forEach((tp, offset) -> state.put("committed:" + group + ":" + tp,
                            offset == null ? -1 : offset.offset()));
        }
        return state;
    }

    /** What changed from {@code before} to {@code after}: each key's difference, absent counting as missing. */
    static Map<String, String> change(Map<String, Long> before, Map<String, Long> after) {
        Map<String, String> changed = new TreeMap<>();
        for (String key : union(before, after)) {
            Long was = before.get(key);
            Long is = after.get(key);
            if (was == null || is == null) {
                changed.put(key, was == null ? "appeared" : "gone");
            } else if (!was.equals(is)) {
                changed.put(key, key.startsWith("end:") ? "+" + (is - was) : "set to " + is);
            }
        }
        return changed;
    }

    private static Set<String> union(Map<String, Long> a, Map<String, Long> b) {
        Set<String> keys = new TreeSet<>(a.keySet());
        keys.addAll(b.keySet());
        return keys;
    }
}
