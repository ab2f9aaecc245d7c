package io.leasehold.broker.cluster;

import io.leasehold.broker.etcd.Etcd;
import io.leasehold.routing.keys.BrokerRegistration;
import io.leasehold.routing.keys.KeySchema;
import io.leasehold.routing.keys.OwnerValue;
import io.leasehold.routing.snapshot.BrokerAddress;
import io.leasehold.routing.snapshot.PartitionId;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster as etcd shows it right now: live brokers (registered on their leases) and who
 * owns which partition. Metadata answers are built from one such view.
 */
public final class ClusterView {

    private static final Logger LOG = LoggerFactory.getLogger(ClusterView.class);

    /** Live brokers by ascending id and partition owners. */
    public record Snapshot(List<BrokerAddress> brokers, Map<PartitionId, Integer> owners) {

        /** The owner if it is live, else a live broker chosen from the partition alone, so every broker agrees. */
        public int leaderOf(String topic, int partition) {
            Integer owner = owners.get(new PartitionId(topic, partition));
            if (owner != null && brokers.stream().anyMatch(broker -> broker.id() == owner)) {
                return owner;
            }
            if (brokers.isEmpty()) {
                return -1;
            }
            return brokers.get(Math.floorMod(topic.hashCode() * 31 + partition, brokers.size())).id();
        }

        public int controllerId() {
            return brokers.isEmpty() ? -1 : brokers.get(0).id();
        }
    }

    private final Etcd etcd;
    private final KeySchema keys;

    public ClusterView(Etcd etcd, KeySchema keys) {
        this.etcd = etcd;
        this.keys = keys;
    }

    public CompletableFuture<Snapshot> read() {
        return etcd.getPrefix(keys.brokersPrefix()).thenCombine(etcd.getPrefix(keys.partitionLeasesPrefix()),
                (brokerValues, leaseValues) -> new Snapshot(brokers(brokerValues), owners(leaseValues)));
    }

    /** The live broker with this id, if registered. */
    public CompletableFuture<BrokerAddress> broker(int brokerId) {
        return read().thenApply(snapshot -> snapshot.brokers().stream()
                .filter(broker -> broker.id() == brokerId).findFirst().orElse(null));
    }

    private List<BrokerAddress> brokers(Map<String, String> values) {
        List<BrokerAddress> brokers = new ArrayList<>();
        values.forEach((key, json) -> {
            OptionalInt id = keys.parseBrokerKey(key);
            if (id.isEmpty()) {
                LOG.warn("ignoring malformed broker key {}", key);
                return;
            }
            try {
                brokers.add(BrokerRegistration.parse(id.getAsInt(), json));
            } catch (IllegalArgumentException e) {
                LOG.warn("ignoring broker registration {}: {}", key, e.getMessage());
            }
        });
        brokers.sort(Comparator.comparingInt(BrokerAddress::id));
        return List.copyOf(brokers);
    }

    private Map<PartitionId, Integer> owners(Map<String, String> values) {
        Map<PartitionId, Integer> owners = new HashMap<>();
        values.forEach((key, value) -> keys.parsePartitionLeaseKey(key).ifPresent(partition ->
                OwnerValue.parse(value).ifPresent(owner -> owners.put(partition, owner))));
        return owners;
    }
}
