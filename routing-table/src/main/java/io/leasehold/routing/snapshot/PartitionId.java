package io.leasehold.routing.snapshot;

import java.util.Objects;

/**
 * One partition of one topic.
 *
 * @param topic     the topic name, never null
 * @param partition the partition index, never negative
 */
public record PartitionId(String topic, int partition) {

    public PartitionId {
        Objects.requireNonNull(topic, "topic");
        if (partition < 0) {
            throw new IllegalArgumentException("partition must not be negative, got " + partition + " for topic " + topic);
        }
    }

    // Written out, not generated: a record's generated equals and hashCode go through method
    // handles, which run slowly until C2 has compiled them, and these two run for every
    // partition of every Produce from the first request on.
    @Override
    public boolean equals(Object o) {
        return o instanceof PartitionId other && partition == other.partition && topic.equals(other.topic);
    }

    @Override
    public int hashCode() {
        return 31 * topic.hashCode() + partition;
    }

    @Override
    public String toString() {
        return topic + "-" + partition;
    }
}
