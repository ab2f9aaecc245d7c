package io.leasehold.bench.load;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Fetch throughput of the stock Kafka Java consumer: reads a pre-filled topic from the beginning
 * (all partitions assigned, no consumer group), going back to the beginning whenever it has read
 * every partition to its end, for a warm-up and then a measured window. Counting only the window
 * keeps connection set-up, the first metadata round trip and the JIT out of the figure, and makes
 * the run long enough to measure however fast the path is.
 */
public final class ConsumerLoad {

    private final Timing timing;
    private final Duration timeLimit;
    private final Map<String, Object> clientSettings;
    private final double bytesPerSecond;

    /**
     * @param timing    warm-up and measured window
     * @param timeLimit how long the consumer may wait for its first records
     */
    public ConsumerLoad(Timing timing, Duration timeLimit) {
        this(timing, timeLimit, Map.of(), 0);
    }

    /**
     * @param clientSettings further consumer settings, e.g. {@code security.protocol} and its
     *                       TLS or SASL settings; they win over the ones this class sets
     * @param bytesPerSecond payload bytes per second to read at most, 0 for as fast as possible:
     *                       the consumer stops polling while it is ahead of that rate, and so
     *                       stops fetching once its fetched data is not being drained
     */
    public ConsumerLoad(Timing timing, Duration timeLimit, Map<String, Object> clientSettings, double bytesPerSecond) {
        if (bytesPerSecond < 0) {
            throw new IllegalArgumentException("rate must be >= 0, was " + bytesPerSecond);
        }
        this.timing = timing;
        this.timeLimit = timeLimit;
        this.clientSettings = Map.copyOf(clientSettings);
        this.bytesPerSecond = bytesPerSecond;
    }

    public LoadResult run(String bootstrap, String topic) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(properties(bootstrap))) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (PartitionInfo info : consumer.partitionsFor(topic, Duration.ofSeconds(30))) {
                partitions.add(new TopicPartition(topic, info.partition()));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, Duration.ofSeconds(30));
            long firstDeadline = System.nanoTime() + timeLimit.toNanos();
            long firstBatch = 0;
            long windowStart = 0;
            long windowEnd = 0;
            long count = 0;
            long bytes = 0;
            long totalBytes = 0;
            while (windowStart == 0 || System.nanoTime() < windowEnd) {
                ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofMillis(500));
                long now = System.nanoTime();
                if (batch.isEmpty()) {
                    if (windowStart == 0 && now > firstDeadline) {
                        throw new IllegalStateException("consumer at " + bootstrap + " read nothing from " + topic
                                + " within " + timeLimit);
                    }
                    continue;
                }
                if (windowStart == 0) {
                    firstBatch = now;
                    windowStart = now + timing.warmup().toNanos();
                    windowEnd = windowStart + timing.measure().toNanos();
                }
                long batchBytes = 0;
                for (ConsumerRecord<byte[], byte[]> record : batch) {
                    batchBytes += record.serializedValueSize();
                }
                totalBytes += batchBytes;
                if (now >= windowStart) {
                    bytes += batchBytes;
                    count += batch.count();
                }
                if (readToEnd(consumer, ends)) {
                    consumer.seekToBeginning(partitions);
                }
                holdToRate(firstBatch, totalBytes);
            }
            double seconds = timing.measure().toNanos() / 1e9;
            return new LoadResult(count, bytes, seconds, totalBytes, new Histogram(3), 0, null);
        }
    }

    /** Sleeps while {@code bytesSoFar} since {@code firstBatch} is ahead of the rate (if there is one). */
    private void holdToRate(long firstBatch, long bytesSoFar) {
        if (bytesPerSecond == 0) {
            return;
        }
        long due = firstBatch + (long) (bytesSoFar / bytesPerSecond * 1e9);
        long ahead = due - System.nanoTime();
        if (ahead > 0) {
            LockSupport.parkNanos(ahead);
        }
    }

    private static boolean readToEnd(KafkaConsumer<?, ?> consumer, Map<TopicPartition, Long> ends) {
        for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
            if (consumer.position(end.getKey()) < end.getValue()) {
                return false;
            }
        }
        return true;
    }
    private Properties properties(String bootstrap) {
        Properties properties = new Properties();
        properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        properties.put(ConsumerConfig.CLIENT_ID_CONFIG, "bench-consumer");
        // At the end of the topic the fetch already in flight waits this long for new data before
        // the consumer can start over; the default 500 ms would dominate every pass.
        properties.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "20");
        properties.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        properties.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        properties.putAll(clientSettings);
        return properties;
    }
}
