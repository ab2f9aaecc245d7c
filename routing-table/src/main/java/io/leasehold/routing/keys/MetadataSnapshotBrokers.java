package io.leasehold.routing.keys;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.leasehold.routing.snapshot.BrokerAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads the broker list out of KafScale's cluster metadata snapshot ({@code P/metadata/snapshot}),
 * a JSON document with Go field names: {@code {"Brokers":[{"NodeID":0,"Host":"..","Port":9092,"Rack":null}],..}}.
 *
 * <p>Only {@code Brokers[].NodeID/Host/Port/Rack} are read. Every other field, in the document or
 * in a broker entry, is ignored, so the document may grow. The snapshot's topic leaders are not
 * read at all: they are a static assignment, not ownership. Within the broker list reading is
 * strict, so a half-understood list never replaces a good one.
 */
public final class MetadataSnapshotBrokers {

    private static final ObjectMapper JSON = new ObjectMapper();

    private MetadataSnapshotBrokers() {
    }

    /**
     * The brokers the snapshot lists, in document order.
     *
     * @throws IllegalArgumentException naming the field and entry that is wrong, if the value is
     *                                  not a JSON object, {@code Brokers} is neither an array nor
     *                                  null, or an entry lacks a non-negative integer NodeID, a
     *                                  non-empty string Host or an integer Port 1..65535, has a Rack
     *                                  that is neither a string nor null, or repeats a NodeID
     */
    public static List<BrokerAddress> parse(String json) {
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("metadata snapshot is not JSON: " + e.getOriginalMessage());
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException("metadata snapshot is not a JSON object");
        }
        JsonNode brokers = root.get("Brokers");
        if (brokers == null || brokers.isNull()) {
            return List.of();
        }
        if (!brokers.isArray()) {
            throw new IllegalArgumentException("metadata snapshot \"Brokers\" is not an array");
        }
        List<BrokerAddress> result = new ArrayList<>(brokers.size());
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < brokers.size(); i++) {
            BrokerAddress broker = parseBroker(i, brokers.get(i));
            if (!seen.add(broker.id())) {
                throw new IllegalArgumentException("metadata snapshot Brokers[" + i + "] repeats NodeID " + broker.id());
            }
            result.add(broker);
        }
        return List.copyOf(result);
    }

    private static BrokerAddress parseBroker(int index, JsonNode entry) {
        String where = "metadata snapshot Brokers[" + index + "]";
        if (entry == null || !entry.isObject()) {
            throw new IllegalArgumentException(where + " is not a JSON object");
        }
        JsonNode id = entry.get("NodeID");
        if (id == null || !id.isInt() || id.asInt() < 0) {
            throw new IllegalArgumentException(where + " \"NodeID\" is not a non-negative integer");
        }
        JsonNode host = entry.get("Host");
        if (host == null || !host.isTextual() || host.asText().isBlank()) {
            throw new IllegalArgumentException(where + " has no non-empty string \"Host\"");
        }
        JsonNode port = entry.get("Port");
        if (port == null || !port.isInt() || port.asInt() < 1 || port.asInt() > 65535) {
            throw new IllegalArgumentException(where + " \"Port\" is not an integer 1..65535");
        }
        JsonNode rack = entry.get("Rack");
        if (rack != null && !rack.isNull() && !rack.isTextual()) {
            throw new IllegalArgumentException(where + " \"Rack\" is neither a string nor null");
        }
        String rackName = rack == null || rack.isNull() ? null : rack.asText();
        return new BrokerAddress(id.asInt(), host.asText(), port.asInt(), rackName);
    }
}
