package io.leasehold.routing.watch;

import io.etcd.jetcd.KeyValue;
import io.leasehold.routing.etcd.EtcdBytes;
import io.leasehold.routing.keys.BrokerRegistration;
import io.leasehold.routing.keys.KeySchema;
import io.leasehold.routing.keys.OwnerValue;
import io.leasehold.routing.snapshot.Ownership;
import io.leasehold.routing.snapshot.PartitionId;
import io.leasehold.routing.snapshot.RoutingSnapshot;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Turns etcd key-values into snapshot entries, the same way for the initial range read and for
 * watch events. A malformed key or value is skipped (and logged once); a key whose new value is
 * malformed loses its previous route, since etcd no longer says who owns it.
 */
final class EntryApplier {

    private final KeySchema keys;
    private final MalformedEntryLog malformed;
    private final MetadataSnapshotReader metadataSnapshot;

    EntryApplier(KeySchema keys, MalformedEntryLog malformed, MetadataSnapshotReader metadataSnapshot) {
        this.keys = keys;
        this.malformed = malformed;
        this.metadataSnapshot = metadataSnapshot;
    }

    /** Applies a key's current value; routes the proxy rejected stay dropped while the value still says the same. */
    void put(RoutingSnapshot.Builder builder, KeyValue entry, DroppedRoutes dropped) {
        String key = EtcdBytes.text(entry.getKey());
        String value = EtcdBytes.text(entry.getValue());
        if (metadataSnapshot.handles(key)) {
            metadataSnapshot.put(builder, value, entry.getModRevision());
        } else if (key.startsWith(keys.partitionLeasesPrefix())) {
            Optional<PartitionId> partition = keys.parsePartitionLeaseKey(key);
            if (partition.isEmpty()) {
                malformed.skipped(key, "not " + keys.partitionLeasesPrefix() + "{topic}/{partition} with a legal topic name and partition number");
                return;
            }
            PartitionId id = partition.get();
            OptionalInt owner = OwnerValue.parse(value);
            if (owner.isEmpty()) {
                malformed.skipped(key, "value '" + value + "' is not a broker id");
                builder.removePartition(id.topic(), id.partition());
                dropped.forgetPartition(id);
                return;
            }
            Ownership ownership = new Ownership(owner.getAsInt(), entry.getCreateRevision());
            if (dropped.suppressesPartition(id, ownership)) {
                builder.removePartition(id.topic(), id.partition());
            } else {
                builder.partition(id.topic(), id.partition(), ownership);
            }
        } else if (key.startsWith(keys.groupLeasesPrefix())) {
            Optional<String> group = keys.parseGroupLeaseKey(key);
            if (group.isEmpty()) {
                malformed.skipped(key, "not " + keys.groupLeasesPrefix() + "{group}");
                return;
            }
            OptionalInt owner = OwnerValue.parse(value);
            if (owner.isEmpty()) {
                malformed.skipped(key, "value '" + value + "' is not a broker id");
                builder.removeGroup(group.get());
                dropped.forgetGroup(group.get());
                return;
            }
            Ownership ownership = new Ownership(owner.getAsInt(), entry.getCreateRevision());
            if (dropped.suppressesGroup(group.get(), ownership)) {
                builder.removeGroup(group.get());
            } else {
                builder.group(group.get(), ownership);
            }
        } else if (key.startsWith(keys.brokersPrefix())) {
            OptionalInt brokerId = keys.parseBrokerKey(key);
            if (brokerId.isEmpty()) {
                malformed.skipped(key, "not " + keys.brokersPrefix() + "{non-negative decimal id}");
                return;
            }
            try {
                builder.broker(BrokerRegistration.parse(brokerId.getAsInt(), value));
            } catch (IllegalArgumentException e) {
                malformed.skipped(key, e.getMessage());
                builder.removeBroker(brokerId.getAsInt());
            }
        }
    }

    /** Applies a key's deletion. */
    void delete(RoutingSnapshot.Builder builder, String key, DroppedRoutes dropped) {
        if (metadataSnapshot.handles(key)) {
            metadataSnapshot.delete(builder);
        } else if (key.startsWith(keys.partitionLeasesPrefix())) {
            keys.parsePartitionLeaseKey(key).ifPresent(id -> {
                builder.removePartition(id.topic(), id.partition());
                dropped.forgetPartition(id);
            });
        } else if (key.startsWith(keys.groupLeasesPrefix())) {
            keys.parseGroupLeaseKey(key).ifPresent(group -> {
                builder.removeGroup(group);
                dropped.forgetGroup(group);
            });
        } else if (key.startsWith(keys.brokersPrefix())) {
            keys.parseBrokerKey(key).ifPresent(builder::removeBroker);
        }
    }
}
