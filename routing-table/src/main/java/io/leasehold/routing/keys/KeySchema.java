package io.leasehold.routing.keys;

import io.leasehold.routing.snapshot.PartitionId;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The ownership contract's etcd key layout under a prefix {@code P} (default {@value #DEFAULT_PREFIX}):
 * <ul>
 *   <li>{@code P/partition-leases/{topic}/{partition}} — owning broker id, on the owner's lease</li>
 *   <li>{@code P/group-leases/{group}} — coordinating broker id, on the owner's lease</li>
 *   <li>{@code P/brokers/{id}} — the broker's address as JSON, on the broker's lease</li>
 *   <li>{@code P/proxies/{id}} — a Leasehold proxy's registration, on the proxy's lease (Leasehold's own)</li>
 *   <li>{@code P/metadata/snapshot} — KafScale's cluster metadata snapshot (JSON), persistent</li>
 *   <li>{@code P/topics/{topic}/partitions/{partition}/next_offset} — next offset, persistent</li>
 * </ul>
 * Parsing is strict: a key that does not follow the layout exactly (bad topic characters, a
 * partition or id that is not a plain non-negative decimal int, extra segments) is rejected, so
 * nothing half-understood ever reaches a routing snapshot.
 */
public final class KeySchema {

    public static final String DEFAULT_PREFIX = "/kafscale";

    /** Kafka's own limit on topic name length. */
    private static final int MAX_TOPIC_LENGTH = 249;

    private final String prefix;
    private final String partitionLeases;
    private final String groupLeases;
    private final String brokers;
    private final String proxies;
    private final String topics;
    private final String metadataSnapshot;

    /**
     * @param prefix the key prefix: empty, or starting with '/'; one trailing '/' is ignored
     * @throws IllegalArgumentException if the prefix is not of that form or contains whitespace
     */
    public KeySchema(String prefix) {
        Objects.requireNonNull(prefix, "prefix");
        String normalized = prefix.endsWith("/") ? prefix.substring(0, prefix.length() - 1) : prefix;
        if (!normalized.isEmpty() && !normalized.startsWith("/")) {
            throw new IllegalArgumentException("etcd key prefix must start with '/', got '" + prefix + "'");
        }
        if (normalized.endsWith("/") || normalized.chars().anyMatch(Character::isWhitespace)) {
            throw new IllegalArgumentException("etcd key prefix must not end in '//' or contain whitespace, got '" + prefix + "'");
        }
        this.prefix = normalized;
        this.partitionLeases = normalized + "/partition-leases/";
        this.groupLeases = normalized + "/group-leases/";
        this.brokers = normalized + "/brokers/";
        this.proxies = normalized + "/proxies/";
        this.topics = normalized + "/topics/";
        this.metadataSnapshot = normalized + "/metadata/snapshot";
    }

    /** The normalized prefix, without a trailing '/'. */
    public String prefix() {
        return prefix;
    }

    /** {@code P/partition-leases/{topic}/{partition}}; rejects illegal topic names and negative partitions. */
    public String partitionLeaseKey(String topic, int partition) {
        requireTopic(topic);
        requirePartition(partition);
        return partitionLeases + topic + "/" + partition;
    }

    /** {@code P/partition-leases/}, the prefix of every partition lease key. */
    public String partitionLeasesPrefix() {
        return partitionLeases;
    }

    /** {@code P/group-leases/{group}}; rejects an empty group id. */
    public String groupLeaseKey(String group) {
        if (group == null || group.isEmpty()) {
            throw new IllegalArgumentException("group id must not be empty");
        }
        return groupLeases + group;
    }

    /** {@code P/group-leases/}, the prefix of every group lease key. */
    public String groupLeasesPrefix() {
        return groupLeases;
    }

    /** {@code P/brokers/{id}}; rejects negative ids. */
    public String brokerKey(int brokerId) {
        if (brokerId < 0) {
            throw new IllegalArgumentException("broker id must not be negative, got " + brokerId);
        }
        return brokers + brokerId;
    }

    /** {@code P/brokers/}, the prefix of every broker registration. */
    public String brokersPrefix() {
        return brokers;
    }

    /** {@code P/proxies/{id}}: one Leasehold proxy's registration, on its own lease. */
    public String proxyKey(String proxyId) {
        if (proxyId.isEmpty() || proxyId.contains("/")) {
            throw new IllegalArgumentException("proxy id must be non-empty and contain no '/', got '" + proxyId + "'");
        }
        return proxies + proxyId;
    }

    /** {@code P/proxies/}, the prefix of every proxy registration: how many live proxies the tier has. */
    public String proxiesPrefix() {
        return proxies;
    }

    /** {@code P/metadata/snapshot}, the one key KafScale's operator writes its cluster snapshot to. */
    public String metadataSnapshotKey() {
        return metadataSnapshot;
    }

    /** {@code P/topics/{topic}/partitions/{partition}/next_offset}, the persistent next offset. */
    public String nextOffsetKey(String topic, int partition) {
        requireTopic(topic);
        requirePartition(partition);
        return topics + topic + "/partitions/" + partition + "/next_offset";
    }

    /** {@code P/topics/}, the prefix of the persistent per-topic keys. */
    public String topicsPrefix() {
        return topics;
    }

    /** The partition named by a {@code P/partition-leases/{topic}/{partition}} key, or empty if malformed. */
    public Optional<PartitionId> parsePartitionLeaseKey(String key) {
        if (key == null || !key.startsWith(partitionLeases)) {
            return Optional.empty();
        }
        String rest = key.substring(partitionLeases.length());
        int slash = rest.indexOf('/');
        if (slash < 0) {
            return Optional.empty();
        }
        String topic = rest.substring(0, slash);
        OptionalInt partition = parseNonNegativeInt(rest.substring(slash + 1));
        if (!isValidTopic(topic) || partition.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new PartitionId(topic, partition.getAsInt()));
    }

    /** The group named by a {@code P/group-leases/{group}} key, or empty if malformed. */
    public Optional<String> parseGroupLeaseKey(String key) {
        if (key == null || !key.startsWith(groupLeases) || key.length() == groupLeases.length()) {
            return Optional.empty();
        }
        return Optional.of(key.substring(groupLeases.length()));
    }

    /** The broker id named by a {@code P/brokers/{id}} key, or empty if malformed. */
    public OptionalInt parseBrokerKey(String key) {
        if (key == null || !key.startsWith(brokers)) {
            return OptionalInt.empty();
        }
        return parseNonNegativeInt(key.substring(brokers.length()));
    }

    /** Whether the name is a legal Kafka topic name: 1..249 of {@code [a-zA-Z0-9._-]}, not "." or "..". */
    public static boolean isValidTopic(String topic) {
        if (topic == null || topic.isEmpty() || topic.length() > MAX_TOPIC_LENGTH
                || topic.equals(".") || topic.equals("..")) {
            return false;
        }
        for (int i = 0; i < topic.length(); i++) {
            char c = topic.charAt(i);
            boolean legal = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '_' || c == '-';
            if (!legal) {
                return false;
            }
        }
        return true;
    }

    /**
     * A plain decimal non-negative int: digits only, no sign, no leading zero (except "0"), no
     * overflow. The same strictness serves partitions, broker ids and owner values.
     */
    public static OptionalInt parseNonNegativeInt(String text) {
        if (text == null || text.isEmpty() || text.length() > 10 || (text.length() > 1 && text.charAt(0) == '0')) {
            return OptionalInt.empty();
        }
        long value = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return OptionalInt.empty();
            }
            value = value * 10 + (c - '0');
        }
        return value > Integer.MAX_VALUE ? OptionalInt.empty() : OptionalInt.of((int) value);
    }

    private static void requireTopic(String topic) {
        if (!isValidTopic(topic)) {
            throw new IllegalArgumentException("not a legal Kafka topic name (1..249 of [a-zA-Z0-9._-]): '" + topic + "'");
        }
    }

    private static void requirePartition(int partition) {
        if (partition < 0) {
            throw new IllegalArgumentException("partition must not be negative, got " + partition);
        }
    }

    @Override
    public String toString() {
        return "KeySchema{" + prefix + "}";
    }
}
