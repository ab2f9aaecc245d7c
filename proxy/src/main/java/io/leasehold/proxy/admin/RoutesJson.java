package io.leasehold.proxy.admin;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;
import io.leasehold.routing.snapshot.BrokerAddress;
import io.leasehold.routing.snapshot.Ownership;
import io.leasehold.routing.snapshot.PartitionId;
import io.leasehold.routing.snapshot.RoutingSnapshot;
import io.leasehold.routing.watch.RoutingTable;

import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.Map;

/**
 * Renders the routing table as the {@code /routes} JSON document: load state, revision,
 * staleness, brokers, and every partition and group owner, sorted so dumps diff cleanly. The
 * broker, partition and group lists are rendered once per routing snapshot and reused until the
 * snapshot changes, so a client polling {@code /routes} costs a copy, not a rendering.
 * Not thread-safe: one renderer thread uses it.
 */
final class RoutesJson {

    private final ObjectMapper mapper = new ObjectMapper();
    private RoutingSnapshot renderedSnapshot;
    private Lists renderedLists;

    byte[] render(RoutingTable table) {
        RoutingSnapshot snapshot = table.snapshot();
        ObjectNode root = mapper.createObjectNode();
        root.put("loaded", table.isLoaded());
        root.put("revision", snapshot.revision());
        root.put("stalenessMillis", table.staleness().toMillis());
        root.put("partitionCount", snapshot.partitionCount());
        root.put("groupCount", snapshot.groups().size());
        Lists lists = listsOf(snapshot);
        root.putRawValue("brokers", lists.brokers());
        root.putRawValue("partitions", lists.partitions());
        root.putRawValue("groups", lists.groups());
        return serialize(root);
    }

    private Lists listsOf(RoutingSnapshot snapshot) {
        // Snapshots are immutable and replaced, never changed: the same instance renders the same lists.
        if (snapshot != renderedSnapshot) {
            renderedLists = new Lists(raw(brokers(snapshot)), raw(partitions(snapshot)), raw(groups(snapshot)));
            renderedSnapshot = snapshot;
        }
        return renderedLists;
    }

    private ArrayNode brokers(RoutingSnapshot snapshot) {
        ArrayNode brokers = mapper.createArrayNode();
        snapshot.brokers().stream().sorted(Comparator.comparingInt(BrokerAddress::id)).forEach(broker -> {
            ObjectNode node = brokers.addObject();
            node.put("id", broker.id());
            node.put("host", broker.host());
            node.put("port", broker.port());
            node.put("rack", broker.rack());
        });
        return brokers;
    }

    private ArrayNode partitions(RoutingSnapshot snapshot) {
        ArrayNode partitions = mapper.createArrayNode();
        snapshot.partitions().entrySet().stream()
                .sorted(Map.Entry.comparingByKey(Comparator.comparing(PartitionId::topic)
                        .thenComparingInt(PartitionId::partition)))
                .forEach(entry -> {
                    ObjectNode node = partitions.addObject();
                    node.put("topic", entry.getKey().topic());
                    node.put("partition", entry.getKey().partition());
                    owner(node, entry.getValue());
                });
        return partitions;
    }

    private ArrayNode groups(RoutingSnapshot snapshot) {
        ArrayNode groups = mapper.createArrayNode();
        snapshot.groups().entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(entry -> {
            ObjectNode node = groups.addObject();
            node.put("group", entry.getKey());
            owner(node, entry.getValue());
        });
        return groups;
    }

    private RawValue raw(ArrayNode list) {
        return new RawValue(new String(serialize(list), StandardCharsets.UTF_8));
    }

    private byte[] serialize(JsonNode node) {
        try {
            return mapper.writeValueAsBytes(node);
        } catch (JsonProcessingException e) {
            // A tree of plain strings and numbers always serializes; reaching here is a bug.
            throw new IllegalStateException("could not render the routing table as JSON", e);
        }
    }

    /** The rendered lists of one snapshot. */
    private record Lists(RawValue brokers, RawValue partitions, RawValue groups) {}

    private static void owner(ObjectNode node, Ownership owner) {
        node.put("brokerId", owner.brokerId());
        node.put("epoch", owner.epoch());
    }
}
