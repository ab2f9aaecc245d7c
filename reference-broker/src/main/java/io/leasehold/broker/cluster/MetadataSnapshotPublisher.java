package io.leasehold.broker.cluster;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.PutOption;
import io.leasehold.broker.etcd.Etcd;
import io.leasehold.routing.snapshot.BrokerAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Lists a broker in KafScale's cluster metadata snapshot ({@code P/metadata/snapshot}), in the
 * shape KafScale's operator writes: Go field names, {@code Brokers[]} sorted by NodeID, the lowest
 * NodeID as {@code ControllerID}. In a KafScale install the operator writes this key from its
 * StatefulSet; a reference broker in {@code --layout kafscale} plays that part for itself at
 * startup, so a test or demo cluster looks the same in etcd. Like the operator's, the entry is
 * persistent (not on a lease): a stopped broker stays listed. Fields already in the document that
 * this class does not know (Topics, ...) are kept. Concurrent brokers are serialized by a
 * compare-and-put on the key's mod revision.
 */
public final class MetadataSnapshotPublisher {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_ATTEMPTS = 20;

    private final KV kv;
    private final String key;
    private final String clusterName;
    private final String clusterId;

    public MetadataSnapshotPublisher(KV kv, String key, String clusterName, String clusterId) {
        this.kv = kv;
        this.key = key;
        this.clusterName = clusterName;
        this.clusterId = clusterId;
    }

    /** Adds or replaces {@code self}'s entry; fails after repeated lost races or if the current value is not JSON. */
    public void publish(BrokerAddress self) throws Exception {
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            List<KeyValue> current = kv.get(Etcd.bytes(key)).get(10, TimeUnit.SECONDS).getKvs();
            long modRevision = current.isEmpty() ? 0 : current.get(0).getModRevision();
            String updated = withBroker(current.isEmpty() ? null : Etcd.text(current.get(0).getValue()), self);
            Cmp unchanged = new Cmp(Etcd.bytes(key), Cmp.Op.EQUAL, CmpTarget.modRevision(modRevision));
            boolean written = kv.txn().If(unchanged)
                    .Then(Op.put(Etcd.bytes(key), Etcd.bytes(updated), PutOption.DEFAULT))
                    .commit().get(10, TimeUnit.SECONDS).isSucceeded();
            if (written) {
                return;
            }
        }
        throw new IllegalStateException("could not list broker " + self.id() + " in " + key + " after " + MAX_ATTEMPTS
                + " attempts: other writers kept changing it");
    }

    private String withBroker(String existing, BrokerAddress self) throws JsonProcessingException {
        ObjectNode root;
        if (existing == null) {
            root = JSON.createObjectNode();
        } else {
            JsonNode parsed = JSON.readTree(existing);
            if (!(parsed instanceof ObjectNode object)) {
                throw new IllegalStateException(key + " holds something other than a JSON object; not overwriting it");
            }
            root = object;
        }
        List<JsonNode> brokers = new ArrayList<>();
        JsonNode listed = root.get("Brokers");
        if (listed != null && listed.isArray()) {
            listed.forEach(entry -> {
                if (entry.path("NodeID").asInt(-1) != self.id()) {
                    brokers.add(entry);
                }
            });
        }
        ObjectNode entry = JSON.createObjectNode();
        entry.put("NodeID", self.id());
        entry.put("Host", self.host());
        entry.put("Port", self.port());
        entry.put("Rack", self.rack());
        entry.putObject("UnknownTags");
        brokers.add(entry);
        brokers.sort(Comparator.comparingInt(node -> node.path("NodeID").asInt()));
        ArrayNode array = JSON.createArrayNode();
        brokers.forEach(array::add);
        // Field order as Go's encoder writes the struct.
        ObjectNode out = JSON.createObjectNode();
        out.set("Brokers", array);
        out.put("ControllerID", brokers.get(0).path("NodeID").asInt());
        out.set("Topics", root.has("Topics") ? root.get("Topics") : JSON.createArrayNode());
        out.put("ClusterName", root.path("ClusterName").asText(clusterName));
        out.put("ClusterID", root.path("ClusterID").asText(clusterId));
        root.fields().forEachRemaining(field -> {
            if (!out.has(field.getKey())) {
                out.set(field.getKey(), field.getValue());
            }
        });
        return JSON.writeValueAsString(out);
    }
}
