package io.leasehold.broker.storage;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;

/**
 * One committed segment of a partition, as recorded in the etcd segment index: the file, the
 * offsets it holds and how many of its bytes are committed. Bytes past {@code bytes} were never
 * committed (a writer that lost its lease mid-append) and are never served.
 *
 * @param file       file name inside the partition directory
 * @param baseOffset first offset in the file
 * @param nextOffset one past the last committed offset in the file
 * @param bytes      committed length of the file
 */
public record SegmentRef(String file, long baseOffset, long nextOffset, long bytes) {

    private static final ObjectMapper JSON = new ObjectMapper();

    public String toJson() {
        ObjectNode node = JSON.createObjectNode();
        node.put("file", file);
        node.put("baseOffset", baseOffset);
        node.put("nextOffset", nextOffset);
        node.put("bytes", bytes);
        return node.toString();
    }

    public boolean contains(long offset) {
        return offset >= baseOffset && offset < nextOffset;
    }

    /**
     * @throws IllegalStateException naming the key, if the stored value is not a segment entry
     */
    public static SegmentRef parse(String key, String json) {
        try {
            JsonNode node = JSON.readTree(json);
            if (node == null || !node.hasNonNull("file") || !node.hasNonNull("baseOffset")
                    || !node.hasNonNull("nextOffset") || !node.hasNonNull("bytes")) {
                throw new IllegalStateException("segment index entry " + key + " is malformed: " + json);
            }
            return new SegmentRef(node.get("file").asText(), node.get("baseOffset").asLong(),
                    node.get("nextOffset").asLong(), node.get("bytes").asLong());
        } catch (IOException e) {
            throw new IllegalStateException("segment index entry " + key + " is not JSON: " + json, e);
        }
    }
}
