package io.leasehold.audit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What an {@link AuditedWorkload} does: how many producers, where they connect, how they are
 * configured, and the bounds (records per producer AND wall time, whichever ends first).
 *
 * @param bootstrapAddresses  producer {@code i} bootstraps to {@code bootstrapAddresses[i % size]}
 * @param partitions          partitions written in rotation; empty lets the client's partitioner choose
 * @param recordsPerSecond    per producer; 0 sends as fast as the client accepts
 * @param producerOverrides   extra producer settings applied last
 */
public record WorkloadSpec(List<String> bootstrapAddresses, String producerIdPrefix, int producers, String topic,
                           List<Integer> partitions, String acks, boolean idempotence, int maxInFlight,
                           long recordsPerProducer, Duration maxDuration, int valueSize, int recordsPerSecond,
                           Duration deliveryTimeout, Map<String, Object> producerOverrides) {

    /** Validates the combination, with messages that name the offending setting. */
    public WorkloadSpec {
        bootstrapAddresses = List.copyOf(bootstrapAddresses);
        partitions = List.copyOf(partitions);
        producerOverrides = Map.copyOf(producerOverrides);
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(maxDuration, "maxDuration");
        Objects.requireNonNull(deliveryTimeout, "deliveryTimeout");
        require(!bootstrapAddresses.isEmpty(), "bootstrapAddresses must not be empty");
        require(producers > 0, "producers must be positive, got " + producers);
        require(recordsPerProducer > 0, "recordsPerProducer must be positive, got " + recordsPerProducer);
        require(!maxDuration.isNegative() && !maxDuration.isZero(), "maxDuration must be positive, got " + maxDuration);
        require(List.of("0", "1", "all", "-1").contains(acks), "acks must be 0, 1, all or -1, got " + acks);
        require(maxInFlight > 0, "maxInFlight must be positive, got " + maxInFlight);
        require(!idempotence || (acks.equals("all") || acks.equals("-1")) && maxInFlight <= 5,
                "idempotence needs acks=all and maxInFlight <= 5, got acks=" + acks + " maxInFlight=" + maxInFlight);
        require(recordsPerSecond >= 0, "recordsPerSecond must not be negative, got " + recordsPerSecond);
        new RecordIdentity(producerIdPrefix + "0", 0);
    }

    /** A builder with the defaults of a small bounded run: 2 producers, acks=all, idempotence off. */
    public static Builder builder(String topic, List<String> bootstrapAddresses) {
        return new Builder(topic, bootstrapAddresses);
    }

    /** The producer id of producer {@code index}, e.g. {@code p0}. */
    public String producerId(int index) {
        return producerIdPrefix + index;
    }

    /** Where producer {@code index} bootstraps. */
    public String bootstrapFor(int index) {
        return bootstrapAddresses.get(index % bootstrapAddresses.size());
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException("workload: " + message);
        }
    }

    /** Builds a {@link WorkloadSpec}; every setter has a default. */
    public static final class Builder {
        private final String topic;
        private final List<String> bootstrapAddresses;
        private String producerIdPrefix = "p";
        private int producers = 2;
        private List<Integer> partitions = List.of();
        private String acks = "all";
        private boolean idempotence;
        private int maxInFlight = 5;
        private long recordsPerProducer = 1000;
        private Duration maxDuration = Duration.ofSeconds(30);
        private int valueSize = 64;
        private int recordsPerSecond;
        private Duration deliveryTimeout = Duration.ofSeconds(20);
        private final Map<String, Object> producerOverrides = new LinkedHashMap<>();

        private Builder(String topic, List<String> bootstrapAddresses) {
            this.topic = topic;
            this.bootstrapAddresses = new ArrayList<>(bootstrapAddresses);
        }

        public Builder producerIdPrefix(String prefix) { this.producerIdPrefix = prefix; return this; }
        public Builder producers(int count) { this.producers = count; return this; }
        public Builder partitions(List<Integer> list) { this.partitions = list; return this; }
        public Builder acks(String value) { this.acks = value; return this; }
        public Builder idempotence(boolean enabled) { this.idempotence = enabled; return this; }
        public Builder maxInFlight(int requests) { this.maxInFlight = requests; return this; }
        public Builder recordsPerProducer(long count) { this.recordsPerProducer = count; return this; }
        public Builder maxDuration(Duration duration) { this.maxDuration = duration; return this; }
        public Builder valueSize(int bytes) { this.valueSize = bytes; return this; }
        public Builder recordsPerSecond(int rate) { this.recordsPerSecond = rate; return this; }
        public Builder deliveryTimeout(Duration timeout) { this.deliveryTimeout = timeout; return this; }
        public Builder producerOverride(String key, Object value) { producerOverrides.put(key, value); return this; }

        public WorkloadSpec build() {
            return new WorkloadSpec(bootstrapAddresses, producerIdPrefix, producers, topic, partitions, acks, idempotence,
                    maxInFlight, recordsPerProducer, maxDuration, valueSize, recordsPerSecond, deliveryTimeout,
                    producerOverrides);
        }
    }
}
