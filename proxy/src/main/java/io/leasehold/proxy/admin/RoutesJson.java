package io.leasehold.proxy.admin;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.leasehold.routing.snapshot.BrokerAddress;
import io.leasehold.routing.snapshot.Ownership;
import io.leasehold.routing.snapshot.PartitionId;
import io.leasehold.routing.snapshot.RoutingSnapshot;
import io.leasehold.routing.watch.RoutingTable;

import java.util.Comparator;
import java.util.Map;

/**
 * Renders the routing table as the {@code /routes} JSON document: load state, revision,
 * staleness, brokers, and every partition and group owner, sorted so dumps diff cleanly.
 */
final class RoutesJson {

    private final ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    byte[] render(RoutingTable table) {
        RoutingSnapshot snapshot = table.snapshot();
        ObjectNode root = mapper.createObjectNode();
        root.put("loaded", table.isLoaded());
        root.put("revision", snapshot.revision());
        root.put("stalenessMillis", table.staleness().toMillis());
        root.put("partitionCount", snapshot.partitionCount());
        root.put("groupCount", snapshot.groups().size());

        ArrayNode brokers = root.putArray("brokers");
        snapshot.brokers().stream().sorted(Comparator.comparingInt(BrokerAddress::id)).forEach(broker -> {
            ObjectNode node = brokers.addObject();
            node.put("id", broker.id());
            node.put("host", broker.host());
            node.put("port", broker.port());
            node.put("rack", broker.rack());
        });

        ArrayNode partitions = root.putArray("partitions");
        snapshot.partitions().entrySet().stream()
                .sorted(Map.Entry.comparingByKey(Comparator.comparing(PartitionId::topic)
                        .thenComparingInt(PartitionId::partition)))
                .forEach(entry -> {
                    ObjectNode node = partitions.addObject();
                    node.put("topic", entry.getKey().topic());
                    node.put("partition", entry.getKey().partition());
                    owner(node, entry.getValue());
                });

        ArrayNode groups = root.putArray("groups");
        snapshot.groups().entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(entry -> {
            ObjectNode node = groups.addObject();
            node.put("group", entry.getKey());
            owner(node, entry.getValue());
        });
        try {
            return mapper.writeValueAsBytes(root);
        } catch (JsonProcessingException e) {
            // A tree of plain strings and numbers always serializes; reaching here is a bug.
            throw new IllegalStateException("could not render the routing table as JSON", e);
        }
    }

    private static void owner(ObjectNode node, Ownership owner) {
        node.put("brokerId", owner.brokerId());
        node.put("epoch", owner.epoch());
    }
}
