package io.leasehold.broker.cluster;

import io.leasehold.broker.etcd.Etcd;
import io.leasehold.routing.keys.BrokerRegistration;
import io.leasehold.routing.keys.KeySchema;
import io.leasehold.routing.keys.MetadataSnapshotBrokers;
import io.leasehold.routing.keys.OwnerValue;
import io.leasehold.routing.snapshot.BrokerAddress;
import io.leasehold.routing.snapshot.PartitionId;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster as etcd shows it right now: the brokers (registered on their leases, or in the
 * KafScale layout listed in the metadata snapshot) and who owns which partition. Metadata
 * answers are built from one such view.
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
    private final boolean fromMetadataSnapshot;

    /**
     * @param fromMetadataSnapshot true to read brokers from {@code P/metadata/snapshot} (KafScale's
     *                             layout) instead of {@code P/brokers/{id}}
     */
    public ClusterView(Etcd etcd, KeySchema keys, boolean fromMetadataSnapshot) {
        this.etcd = etcd;
        this.keys = keys;
        this.fromMetadataSnapshot = fromMetadataSnapshot;
    }

    public CompletableFuture<Snapshot> read() {
        CompletableFuture<List<BrokerAddress>> brokers = fromMetadataSnapshot
                ? etcd.get(keys.metadataSnapshotKey()).thenApply(this::listed)
                : etcd.getPrefix(keys.brokersPrefix()).thenApply(this::brokers);
        return brokers.thenCombine(etcd.getPrefix(keys.partitionLeasesPrefix()),
                (live, leaseValues) -> new Snapshot(live, owners(leaseValues)));
    }

    /** The live broker with this id, if registered. */
    public CompletableFuture<BrokerAddress> broker(int brokerId) {
        return read().thenApply(snapshot -> snapshot.brokers().stream()
                .filter(broker -> broker.id() == brokerId).findFirst().orElse(null));
    }

    private List<BrokerAddress> listed(Optional<String> snapshot) {
        if (snapshot.isEmpty()) {
            return List.of();
        }
        try {
            List<BrokerAddress> brokers = new ArrayList<>(MetadataSnapshotBrokers.parse(snapshot.get()));
            brokers.sort(Comparator.comparingInt(BrokerAddress::id));
            return List.copyOf(brokers);
        } catch (IllegalArgumentException e) {
            LOG.warn("ignoring {}: {}", keys.metadataSnapshotKey(), e.getMessage());
            return List.of();
        }
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
