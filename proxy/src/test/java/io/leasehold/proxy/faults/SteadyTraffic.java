package io.leasehold.proxy.faults;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A well-behaved client on its own connections while a test abuses the proxy: in a loop it
 * produces one record through the proxy, waits for the ack, then fetches until it reads that
 * record back. Counts round trips that worked and the ones that did not (with why).
 */
final class SteadyTraffic implements AutoCloseable {

    private static final Duration ROUND_TRIP_BOUND = Duration.ofSeconds(15);

    private final String bootstrap;
    private final TopicPartition partition;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicLong completed = new AtomicLong();
    private final Set<String> failures = ConcurrentHashMap.newKeySet();
    private final Thread thread;

    SteadyTraffic(String bootstrap, String topic) {
        this.bootstrap = bootstrap;
        this.partition = new TopicPartition(topic, 0);
        this.thread = new Thread(this::run, "steady-traffic");
        this.thread.setDaemon(true);
    }

    SteadyTraffic start() {
        thread.start();
        return this;
    }

    long completed() {
        return completed.get();
    }

    Set<String> failures() {
        return Set.copyOf(failures);
    }

    /** Stops after the current round trip. */
    @Override
    public void close() throws InterruptedException {
        stop.set(true);
        thread.join(ROUND_TRIP_BOUND.multipliedBy(2).toMillis());
    }

    private void run() {
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.LINGER_MS_CONFIG, 0,
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) ROUND_TRIP_BOUND.toMillis(),
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class));
             KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                     ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                     ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
                     ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class))) {
            consumer.assign(List.of(partition));
            for (long round = 0; !stop.get(); round++) {
                roundTrip(producer, consumer, "steady-" + round);
            }
        } catch (RuntimeException e) {
            failures.add("client failed: " + e);
        }
    }

    private void roundTrip(KafkaProducer<byte[], byte[]> producer, KafkaConsumer<byte[], byte[]> consumer, String value) {
        try {
            long offset = producer.send(new ProducerRecord<>(partition.topic(), 0, null,
                    value.getBytes(StandardCharsets.UTF_8))).get(ROUND_TRIP_BOUND.toMillis(), TimeUnit.MILLISECONDS).offset();
            consumer.seek(partition, offset);
            long deadline = System.nanoTime() + ROUND_TRIP_BOUND.toNanos();
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    if (record.offset() == offset) {
                        if (value.equals(new String(record.value(), StandardCharsets.UTF_8))) {
                            completed.incrementAndGet();
                        } else {
                            failures.add("offset " + offset + " holds another record than " + value);
                        }
                        return;
                    }
                }
            }
            failures.add("record " + value + " at offset " + offset + " not fetched within " + ROUND_TRIP_BOUND);
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
                stop.set(true);
            }
            failures.add("produce of " + value + " failed: " + e);
        }
    }
}
