package io.leasehold.proxy.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.leasehold.testing.JavaCommand;
import io.leasehold.testing.LocalCluster;
import io.leasehold.testing.ManagedProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM while four producers send without pause and a consumer long-polls (so the proxy is
 * never idle as a whole): every connection stops reading, answers what it has read and closes,
 * the proxy exits 0 within its drain timeout, and no request is cut off — every record the broker
 * holds was acknowledged to its producer, so no producer is left not knowing whether its record
 * was written. Producers do not retry, so a cut request would show as a record on the broker
 * that its producer saw fail.
 */
class DrainUnderLoadTest {
    private static final int PRODUCERS = 4;
    private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(8);
    /** The consumer's fetch waits this long at the broker: requests stay in flight all the time. */
    private static final int FETCH_WAIT_MS = 2_000;
    private static final int ACKS_BEFORE_SIGTERM = 400;

    @TempDir
    Path dir;

    @Test
    void sigtermUnderContinuousProduceAnswersEveryRequestReadAndExitsCleanly() throws Exception {
        try (LocalCluster cluster = LocalCluster.builder("drain").brokers(1).start()) {
            cluster.createTopic("drain", 4);
            cluster.createTopic("quiet", 1);
            try (LaunchedProxy launched = LaunchedProxy.start(cluster, dir, "drain-proxy", JavaCommand.ofCurrentClasspath(),
                    Map.of("LEASEHOLD_SHUTDOWN_DRAIN_TIMEOUT", DRAIN_TIMEOUT.toSeconds() + "s"))) {
                ManagedProcess proxy = launched.process();
                String bootstrap = launched.address();
                Set<String> acked = ConcurrentHashMap.newKeySet();
                Set<String> failed = ConcurrentHashMap.newKeySet();
                AtomicBoolean stop = new AtomicBoolean();
                int exit;
                List<Thread> clients = new ArrayList<>();
                for (int p = 0; p < PRODUCERS; p++) {
                    clients.add(producing(bootstrap, "p" + p, acked, failed, stop));
                }
                clients.add(longPolling(bootstrap, stop));
                clients.forEach(Thread::start);
                try {
                    await().atMost(Duration.ofSeconds(60)).until(() -> acked.size() >= ACKS_BEFORE_SIGTERM);
                    assertThat(failed).as("failures before SIGTERM").isEmpty();

                    exit = proxy.terminate(DRAIN_TIMEOUT.plusSeconds(15));
                } finally {
                    stop.set(true);
                    for (Thread client : clients) {
                        client.join(30_000);
                    }
                }
                Set<String> written = readAll(cluster.bootstrapServers(), "drain");
                Set<String> writtenButNotAcked = new HashSet<>(written);
                writtenButNotAcked.removeAll(acked);
                System.out.printf("drain: %d records acked, %d failed after the proxy went away, %d on the broker%n",
                        acked.size(), failed.size(), written.size());
                assertThat(writtenButNotAcked).as("records written whose producer never got the answer").isEmpty();
                assertThat(written).as("every acked record is on the broker").containsAll(acked);
                assertThat(exit).as("exit status after the drain (3 = drain timed out)").isZero();
                assertThat(proxy.stderrTail(200)).doesNotContain("Drain timeout");
            }
        }
    }

    private static Thread producing(String bootstrap, String name, Set<String> acked, Set<String> failed,
                                    AtomicBoolean stop) {
        return new Thread(() -> {
            Map<String, Object> config = new HashMap<>();
            config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            config.put(ProducerConfig.ACKS_CONFIG, "1");
            config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
            config.put(ProducerConfig.RETRIES_CONFIG, 0);
            config.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5);
            config.put(ProducerConfig.LINGER_MS_CONFIG, 0);
            config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 5_000);
            config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 10_000);
            config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 9_000);
            config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
            config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
                for (long seq = 0; !stop.get(); seq++) {
                    String value = name + "-" + seq;
                    try {
                        producer.send(new ProducerRecord<>("drain", value), (metadata, error) ->
                                (error == null ? acked : failed).add(value));
                    } catch (RuntimeException metadataUnavailable) {
                        failed.add(value);
                    }
                    if (seq % 50 == 49) {
                        // Bounded: at most 50 records waiting per producer, so sending never stops for long.
                        producer.flush();
                    }
                }
            }
        }, "drain-" + name);
    }

    private static Thread longPolling(String bootstrap, AtomicBoolean stop) {
        return new Thread(() -> {
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                    ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                    ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, FETCH_WAIT_MS,
                    ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5_000,
                    ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                    ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class))) {
                consumer.assign(List.of(new TopicPartition("quiet", 0)));
                while (!stop.get()) {
                    try {
                        consumer.poll(Duration.ofMillis(500));
                    } catch (RuntimeException proxyGone) {
                        // Expected once the proxy has drained.
                    }
                }
            }
        }, "drain-consumer");
    }

    /** Every value in {@code topic}, read straight from the broker. */
    private static Set<String> readAll(String brokers, String topic) {
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class))) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                    .map(info -> new TopicPartition(info.topic(), info.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
            Set<String> values = new HashSet<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                assertThat(System.nanoTime() - deadline).as("reading the topic back").isNegative();
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
                    values.add(record.value());
                }
            }
            return values;
        }
    }
}
