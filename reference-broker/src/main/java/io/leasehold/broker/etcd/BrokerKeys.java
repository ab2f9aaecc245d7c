package io.leasehold.broker.etcd;

import io.leasehold.routing.keys.KeySchema;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * The broker's own etcd keys, beside the ownership contract's keys from {@link KeySchema}:
 * <ul>
 *   <li>{@code P/topics/{topic}/meta} — topic id and partition count (JSON)</li>
 *   <li>{@code P/topics/{topic}/configs} — the topic's config overrides (JSON object of strings)</li>
 *   <li>{@code P/segments/{topic}/{partition}/{base offset}} — one committed segment (JSON)</li>
 *   <li>{@code P/producers/{topic}/{partition}/{producer id}} — idempotent producer state (JSON)</li>
 *   <li>{@code P/groups/{group}/offsets/{topic}/{partition}} — a committed group offset (JSON)</li>
 *   <li>{@code P/producer-id-counter} — the last producer id handed out</li>
 * </ul>
 * Segment, producer and offset keys live outside {@code P/topics/} so listing topics stays a
 * read of one small key per topic and partition.
 */
public final class BrokerKeys {

    private static final String META = "/meta";

    private final KeySchema schema;
    private final String root;

    public BrokerKeys(KeySchema schema) {
        this.schema = schema;
        this.root = schema.prefix();
    }

    public KeySchema schema() {
        return schema;
    }

    public String topicsPrefix() {
        return schema.topicsPrefix();
    }

    public String topicPrefix(String topic) {
        return schema.topicsPrefix() + topic + "/";
    }

    public String topicMetaKey(String topic) {
        return topicPrefix(topic) + "meta";
    }

    public String topicConfigsKey(String topic) {
        return topicPrefix(topic) + "configs";
    }

    /** The topic named by a {@code P/topics/{topic}/meta} key, or null for any other key. */
    public String topicOfMetaKey(String key) {
        if (!key.startsWith(schema.topicsPrefix()) || !key.endsWith(META)) {
            return null;
        }
        String topic = key.substring(schema.topicsPrefix().length(), key.length() - META.length());
        return KeySchema.isValidTopic(topic) ? topic : null;
    }

    public String nextOffsetKey(String topic, int partition) {
        return schema.nextOffsetKey(topic, partition);
    }

    public String segmentsPrefix(String topic) {
        return root + "/segments/" + topic + "/";
    }

    public String segmentsPrefix(String topic, int partition) {
        return segmentsPrefix(topic) + partition + "/";
    }

    public String segmentKey(String topic, int partition, long baseOffset) {
        return segmentsPrefix(topic, partition) + String.format("%020d", baseOffset);
    }

    public String producersPrefix(String topic) {
        return root + "/producers/" + topic + "/";
    }

    public String producersPrefix(String topic, int partition) {
        return producersPrefix(topic) + partition + "/";
    }

    public String producerKey(String topic, int partition, long producerId) {
        return producersPrefix(topic, partition) + producerId;
    }

    public String partitionLeasesPrefix(String topic) {
        return schema.partitionLeasesPrefix() + topic + "/";
    }

    /** Group ids may contain any character, '/' included, so they are percent-encoded in keys. */
    public String groupOffsetsPrefix(String group) {
        return root + "/groups/" + URLEncoder.encode(group, StandardCharsets.UTF_8) + "/offsets/";
    }

    public String groupOffsetKey(String group, String topic, int partition) {
        return groupOffsetsPrefix(group) + topic + "/" + partition;
    }

    public String producerIdCounterKey() {
        return root + "/producer-id-counter";
    }
}
