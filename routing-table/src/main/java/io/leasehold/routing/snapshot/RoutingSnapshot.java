package io.leasehold.routing.snapshot;

import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * An immutable view of who owns which partition and group, and where the brokers listen, as of
 * one etcd revision. Broker addresses come from two sources: registrations ({@code P/brokers/{id}},
 * written by each broker on its lease) and the brokers listed in KafScale's metadata snapshot
 * ({@code P/metadata/snapshot}). When both name an id, the registration wins: it is the broker's
 * own word and lives and dies with it, while the snapshot is written by an operator and may lag. Every lookup is a plain read of final fields, so any number of
 * threads can use a snapshot without locks; partition, group and broker lookups allocate nothing.
 *
 * <p>New snapshots are made with {@link #builder()} or, copy-on-write, with {@link #toBuilder()}:
 * the new snapshot shares every topic table that was not touched with this one.
 */
public final class RoutingSnapshot {

    private static final RoutingSnapshot EMPTY = new RoutingSnapshot(Map.of(), Map.of(), Map.of(), Map.of(), new int[0],
            new BrokerAddress[0], 0, 0);

    private final Map<String, TopicOwners> topics;
    private final Map<String, Ownership> groups;
    private final Map<Integer, BrokerAddress> registered;
    private final Map<Integer, BrokerAddress> listed;
    private final int[] brokerIds;
    private final BrokerAddress[] brokerAddresses;
    private final long revision;
    private final int partitionCount;

    private RoutingSnapshot(Map<String, TopicOwners> topics, Map<String, Ownership> groups,
                            Map<Integer, BrokerAddress> registered, Map<Integer, BrokerAddress> listed, int[] brokerIds,
                            BrokerAddress[] brokerAddresses, long revision, int partitionCount) {
        this.topics = topics;
        this.groups = groups;
        this.registered = registered;
        this.listed = listed;
        this.brokerIds = brokerIds;
        this.brokerAddresses = brokerAddresses;
        this.revision = revision;
        this.partitionCount = partitionCount;
    }

    /** The snapshot with nothing in it, at revision 0. */
    public static RoutingSnapshot empty() {
        return EMPTY;
    }

    /** A builder starting from nothing. */
    public static Builder builder() {
        return new Builder(EMPTY);
    }

    /** A builder starting from this snapshot's content; topics it does not touch are shared, not copied. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** The partition's owner, or null when no owner is known. */
    public Ownership partitionOwner(String topic, int partition) {
        TopicOwners owners = topics.get(topic);
        return owners == null ? null : owners.owner(partition);
    }

    /** The consumer group's coordinating owner, or null when no owner is known. */
    public Ownership groupOwner(String group) {
        return groups.get(group);
    }

    /** The broker's address (its registration, else its metadata snapshot entry), or null when neither names it. */
    public BrokerAddress broker(int brokerId) {
        int at = Arrays.binarySearch(brokerIds, brokerId);
        return at >= 0 ? brokerAddresses[at] : null;
    }

    /** The known brokers from both sources (registration first), in broker id order. */
    public Collection<BrokerAddress> brokers() {
        return Collections.unmodifiableList(Arrays.asList(brokerAddresses));
    }

    /** Brokers registered under {@code P/brokers/{id}}, by id. */
    public Map<Integer, BrokerAddress> registeredBrokers() {
        return registered;
    }

    /** Brokers listed in the metadata snapshot, by id. */
    public Map<Integer, BrokerAddress> listedBrokers() {
        return listed;
    }

    /** Every owned partition, ordered by topic then partition; built on each call, meant for dumps. */
    public Map<PartitionId, Ownership> partitions() {
        Map<PartitionId, Ownership> all = new LinkedHashMap<>(partitionCount * 4 / 3 + 1);
        new TreeMap<>(topics).forEach((topic, owners) ->
                owners.forEach((owner, partition) -> all.put(new PartitionId(topic, partition), owner)));
        return Collections.unmodifiableMap(all);
    }

    /** Every owned group, ordered by name. */
    public Map<String, Ownership> groups() {
        return Collections.unmodifiableMap(new TreeMap<>(groups));
    }

    /** The etcd revision this snapshot reflects. */
    public long revision() {
        return revision;
    }

    /** How many partitions have a known owner. */
    public int partitionCount() {
        return partitionCount;
    }

    @Override
    public String toString() {
        return "RoutingSnapshot{revision=" + revision + ", partitions=" + partitionCount + ", groups=" + groups.size()
                + ", brokers=" + brokerIds.length + "}";
    }

    /** Collects owners and brokers for a new snapshot. Not thread-safe; use it from one thread. */
    public static final class Builder {
        private final Map<String, TopicOwners> baseTopics;
        private final Map<String, TopicOwners.Editor> editedTopics = new HashMap<>();
        private final Map<String, Ownership> groups;
        private final TreeMap<Integer, BrokerAddress> registered;
        private Map<Integer, BrokerAddress> listed;
        private long revision;

        private Builder(RoutingSnapshot base) {
            this.baseTopics = base.topics;
            this.groups = new HashMap<>(base.groups);
            this.registered = new TreeMap<>(base.registered);
            this.listed = base.listed;
            this.revision = base.revision;
        }

        /** Sets the partition's owner, replacing any previous one. */
        public Builder partition(String topic, int partition, Ownership owner) {
            Objects.requireNonNull(topic, "topic");
            Objects.requireNonNull(owner, "owner");
            if (partition < 0) {
                throw new IllegalArgumentException("partition must not be negative, got " + partition + " for topic " + topic);
            }
            editor(topic).put(partition, owner);
            return this;
        }

        /** Forgets the partition's owner; returns whether there was one. */
        public boolean removePartition(String topic, int partition) {
            TopicOwners.Editor editor = editedTopics.get(topic);
            if (editor == null) {
                TopicOwners base = baseTopics.get(topic);
                if (base == null || base.owner(partition) == null) {
                    return false;
                }
                editor = editor(topic);
            }
            return editor.remove(partition);
        }

        /** The partition's owner as built so far, or null. */
        public Ownership partitionOwner(String topic, int partition) {
            TopicOwners.Editor editor = editedTopics.get(topic);
            if (editor != null) {
                return editor.owner(partition);
            }
            TopicOwners base = baseTopics.get(topic);
            return base == null ? null : base.owner(partition);
        }

        /** Sets the group's owner, replacing any previous one. */
        public Builder group(String group, Ownership owner) {
            groups.put(Objects.requireNonNull(group, "group"), Objects.requireNonNull(owner, "owner"));
            return this;
        }

        /** Forgets the group's owner; returns whether there was one. */
        public boolean removeGroup(String group) {
            return groups.remove(group) != null;
        }

        /** The group's owner as built so far, or null. */
        public Ownership groupOwner(String group) {
            return groups.get(group);
        }

        /** Registers (or re-registers) a broker address under its id. */
        public Builder broker(BrokerAddress address) {
            registered.put(address.id(), address);
            return this;
        }

        /** Forgets a broker's registration; returns whether it was registered. */
        public boolean removeBroker(int brokerId) {
            return registered.remove(brokerId) != null;
        }

        /** Replaces the brokers listed by the metadata snapshot (an empty list when there is none). */
        public Builder listedBrokers(Collection<BrokerAddress> brokers) {
            TreeMap<Integer, BrokerAddress> byId = new TreeMap<>();
            for (BrokerAddress address : brokers) {
                byId.put(address.id(), address);
            }
            this.listed = Collections.unmodifiableMap(byId);
            return this;
        }

        /** The etcd revision the built snapshot reflects. */
        public Builder revision(long revision) {
            this.revision = revision;
            return this;
        }

        public RoutingSnapshot build() {
            Map<String, TopicOwners> topics = new HashMap<>(baseTopics);
            editedTopics.forEach((topic, editor) -> {
                TopicOwners built = editor.build();
                if (built == null) {
                    topics.remove(topic);
                } else {
                    topics.put(topic, built);
                }
            });
            int count = 0;
            for (TopicOwners owners : topics.values()) {
                count += owners.size();
            }
            TreeMap<Integer, BrokerAddress> brokers = new TreeMap<>(listed);
            brokers.putAll(registered);
            int[] ids = new int[brokers.size()];
            BrokerAddress[] addresses = new BrokerAddress[brokers.size()];
            int i = 0;
            for (BrokerAddress address : brokers.values()) {
                ids[i] = address.id();
                addresses[i++] = address;
            }
            return new RoutingSnapshot(topics, new HashMap<>(groups), Collections.unmodifiableMap(new TreeMap<>(registered)),
                    listed, ids, addresses, revision, count);
        }

        private TopicOwners.Editor editor(String topic) {
            return editedTopics.computeIfAbsent(topic, t -> {
                TopicOwners base = baseTopics.get(t);
                return base == null ? new TopicOwners.Editor() : base.edit();
            });
        }
    }
}
