package io.leasehold.bench.load;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
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
 * (all partitions assigned, no consumer group) until it has {@code records} records or the time
 * limit passes. The clock starts when the first records arrive, so connection set-up and the
 * first metadata round trip are not counted as fetch time.
 */
public final class ConsumerLoad {

    private final Duration timeLimit;

    public ConsumerLoad(Duration timeLimit) {
        this.timeLimit = timeLimit;
    }

    public LoadResult run(String bootstrap, String topic, long records) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(properties(bootstrap))) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (PartitionInfo info : consumer.partitionsFor(topic, Duration.ofSeconds(30))) {
                partitions.add(new TopicPartition(topic, info.partition()));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + timeLimit.toNanos();
            long firstAt = 0;
            long count = 0;
            long bytes = 0;
            while (count < records && System.nanoTime() < deadline) {
                ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofMillis(500));
                if (batch.isEmpty()) {
                    continue;
                }
                if (firstAt == 0) {
                    firstAt = System.nanoTime();
                }
                for (ConsumerRecord<byte[], byte[]> record : batch) {
                    bytes += record.serializedValueSize();
                }
                count += batch.count();
            }
            if (firstAt == 0) {
                throw new IllegalStateException("consumer at " + bootstrap + " read nothing from " + topic
                        + " within " + timeLimit);
            }
            double seconds = (System.nanoTime() - firstAt) / 1e9;
            long missing = Math.max(0, records - count);
            return new LoadResult(count, bytes, seconds, bytes, new Histogram(3), missing,
                    missing > 0 ? "read " + count + " of " + records + " records within " + timeLimit : null);
        }
    }

    private static Properties properties(String bootstrap) {
        Properties properties = new Properties();
        properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        properties.put(ConsumerConfig.CLIENT_ID_CONFIG, "bench-consumer");
        properties.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        properties.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return properties;
    }
}
