package io.leasehold.broker.topic;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import org.apache.kafka.common.Uuid;

/**
 * What the broker stores about a topic at {@code P/topics/{topic}/meta}.
 *
 * @param name       topic name
 * @param topicId    the id given at creation; a re-created topic gets a new one
 * @param partitions partition count
 */
public record TopicMeta(String name, Uuid topicId, int partitions) {

    private static final ObjectMapper JSON = new ObjectMapper();

    public String toJson() {
        ObjectNode node = JSON.createObjectNode();
        node.put("topicId", topicId.toString());
        node.put("partitions", partitions);
        return node.toString();
    }

    /** Storage directory name: carries the id so a re-created topic never reads the old topic's files. */
    public String directoryName() {
        return name + "-" + topicId;
    }

    public boolean hasPartition(int partition) {
        return partition >= 0 && partition < partitions;
    }

    /**
     * @throws IllegalStateException naming the topic, if the stored value is not what this broker writes
     */
    public static TopicMeta parse(String name, String json) {
        try {
            JsonNode node = JSON.readTree(json);
            JsonNode id = node == null ? null : node.get("topicId");
            JsonNode partitions = node == null ? null : node.get("partitions");
            if (id == null || !id.isTextual() || partitions == null || !partitions.isInt() || partitions.asInt() < 1) {
                throw new IllegalStateException("topic '" + name + "' has malformed metadata in etcd: " + json);
            }
            return new TopicMeta(name, Uuid.fromString(id.asText()), partitions.asInt());
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalStateException("topic '" + name + "' has unreadable metadata in etcd: " + json, e);
        }
    }
}
