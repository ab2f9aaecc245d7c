package io.leasehold.audit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads topics back with a real kafka-clients consumer: every partition assigned (no group),
 * from the log start to the end offsets reported when the read began. Offsets are never reset
 * silently: an out-of-range position ends the pass with an error instead. A pass that makes no
 * progress for the stall timeout ends early: offsets below the end that no broker serves are a
 * finding (gaps), not something to wait out.
 */
public final class TopicReader {

    private static final Duration POLL = Duration.ofMillis(200);
    private static final Duration POSITION_TIMEOUT = Duration.ofSeconds(2);

    private final Duration timeout;
    private final Duration stallTimeout;
    private final Map<String, Object> consumerOverrides;

    /**
     * @param timeout           bound on one whole pass
     * @param stallTimeout      a pass whose positions do not move for this long ends
     * @param consumerOverrides extra consumer settings (e.g. security), applied last
     */
    public TopicReader(Duration timeout, Duration stallTimeout, Map<String, Object> consumerOverrides) {
        this.timeout = timeout;
        this.stallTimeout = stallTimeout;
        this.consumerOverrides = Map.copyOf(consumerOverrides);
    }

    /** A reader bounded by {@code timeout} that gives up after 10 s without progress. */
    public TopicReader(Duration timeout) {
        this(timeout, Duration.ofSeconds(10), Map.of());
    }

    /** Reads {@code topics} through {@code bootstrapServers}; the pass is named after the address. */
    public ReadPass read(String bootstrapServers, Collection<String> topics) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(properties(bootstrapServers))) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (String topic : topics) {
                List<PartitionInfo> infos = consumer.partitionsFor(topic, remaining(deadline));
                if (infos == null || infos.isEmpty()) {
                    return new ReadPass(bootstrapServers, List.of(), "topic " + topic + " has no partitions (does it exist?)");
                }
                infos.forEach(info -> partitions.add(new TopicPartition(info.topic(), info.partition())));
            }
            consumer.assign(partitions);
            Map<TopicPartition, Long> starts = consumer.beginningOffsets(partitions, remaining(deadline));
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, remaining(deadline));
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, List<ObservedRecord>> records = new HashMap<>();
            partitions.forEach(partition -> records.put(partition, new ArrayList<>()));
            Map<TopicPartition, String> failed = new LinkedHashMap<>();
            String error = poll(consumer, bootstrapServers, ends, records, failed, deadline);
            List<PartitionRead> reads = new ArrayList<>();
            for (TopicPartition partition : partitions) {
                long end = ends.get(partition);
                boolean complete = error == null && !failed.containsKey(partition)
                        && positions(consumer, List.of(partition)).get(partition) >= end;
                reads.add(new PartitionRead(partition.topic(), partition.partition(), starts.get(partition), end,
                        records.get(partition), complete));
            }
            List<String> errors = new ArrayList<>();
            failed.forEach((partition, reason) -> errors.add("read through " + bootstrapServers + ": " + partition + " " + reason));
            if (error != null) {
                errors.add(error);
            }
            return new ReadPass(bootstrapServers, reads, errors.isEmpty() ? null : String.join("; ", errors));
        } catch (KafkaException e) {
            return new ReadPass(bootstrapServers, List.of(), "read through " + bootstrapServers + " failed: " + e);
        }
    }

    /**
     * Polls until every partition reached its end offset or failed; returns why the pass as a
     * whole ended early, or null. A partition whose fetch position the broker calls out of range
     * is recorded in {@code failed} and paused, and the other partitions are still read.
     */
    private String poll(KafkaConsumer<byte[], byte[]> consumer, String source, Map<TopicPartition, Long> ends,
                        Map<TopicPartition, List<ObservedRecord>> records, Map<TopicPartition, String> failed,
                        long deadline) {
        Map<TopicPartition, Long> lastPositions = Map.of();
        long lastProgress = System.nanoTime();
        while (true) {
            List<TopicPartition> reading = ends.keySet().stream().filter(partition -> !failed.containsKey(partition)).toList();
            Map<TopicPartition, Long> currentPositions = positions(consumer, reading);
            if (reading.stream().allMatch(partition -> currentPositions.get(partition) >= ends.get(partition))) {
                return null;
            }
            long now = System.nanoTime();
            if (now > deadline) {
                return "read through " + source + " did not reach the end offsets within " + timeout
                        + " (positions " + currentPositions + ", ends " + ends + ")";
            }
            if (!currentPositions.equals(lastPositions)) {
                lastPositions = currentPositions;
                lastProgress = now;
            } else if (now - lastProgress > stallTimeout.toNanos()) {
                return "read through " + source + " stalled for " + stallTimeout + " below the end offsets"
                        + " (positions " + currentPositions + ", ends " + ends + ")";
            }
            try {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(POLL)) {
                    TopicPartition partition = new TopicPartition(record.topic(), record.partition());
                    if (record.offset() < ends.get(partition)) {
                        records.get(partition).add(new ObservedRecord(record.topic(), record.partition(), record.offset(),
                                RecordIdentity.parseValue(record.value()).orElse(null), Arrays.hashCode(record.value()), source));
                    }
                }
            } catch (OffsetOutOfRangeException e) {
                e.offsetOutOfRangePartitions().forEach((partition, position) -> failed.put(partition,
                        "fetch position " + position + " is out of range (end offset " + ends.get(partition) + ")"));
                consumer.pause(e.offsetOutOfRangePartitions().keySet());
            } catch (KafkaException e) {
                return "read through " + source + " failed at positions " + currentPositions + ": " + e;
            }
        }
    }

    /** Current positions; -1 where the consumer cannot tell (e.g. after an out-of-range fetch). */
    private static Map<TopicPartition, Long> positions(KafkaConsumer<byte[], byte[]> consumer, Collection<TopicPartition> partitions) {
        Map<TopicPartition, Long> positions = new HashMap<>();
        for (TopicPartition partition : partitions) {
            try {
                positions.put(partition, consumer.position(partition, POSITION_TIMEOUT));
            } catch (KafkaException e) {
                positions.put(partition, -1L);
            }
        }
        return positions;
    }

    private static Duration remaining(long deadline) {
        return Duration.ofNanos(Math.max(1_000_000L, deadline - System.nanoTime()));
    }

    private Properties properties(String bootstrapServers) {
        Properties properties = new Properties();
        properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        properties.put(ConsumerConfig.CLIENT_ID_CONFIG, "leasehold-auditor");
        properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        properties.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
        properties.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        properties.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        properties.putAll(consumerOverrides);
        return properties;
    }
}
