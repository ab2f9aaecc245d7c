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

    @Override
    public String toString() {
        return topic + "-" + partition;
    }
}
