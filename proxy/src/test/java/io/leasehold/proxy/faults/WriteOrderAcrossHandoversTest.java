package io.leasehold.proxy.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.Client;
import io.leasehold.routing.keys.KeySchema;
import io.leasehold.proxy.testing.PrometheusScrape;
import io.leasehold.testing.JavaCommand;
import io.leasehold.testing.LocalCluster;
import io.leasehold.testing.ProxyProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * A producer pipelining five requests into one partition keeps its order through the proxy
 * while the partition's ownership keeps moving between brokers: requests in flight to the old
 * owner are rejected and retried by the proxy, and later requests must not overtake them on the
 * new owner ({@code PartitionWriteOrder}). The producer is not idempotent, so no broker sequence
 * check restores the order; and the proxy's retries are invisible to it, so it never retries
 * (and reorders) anything itself: the test checks that it did not, since an error that reaches
 * it (a broker failing its etcd commit answers REQUEST_TIMED_OUT) makes it resend a request
 * behind later ones, which reorders records without any fault of the proxy's.
 */
class WriteOrderAcrossHandoversTest {

    private static final int RECORDS = 3_000;
    private static final Duration HANDOVER_EVERY = Duration.ofMillis(150);
    /**
     * Handovers do not wait for leases to expire, so the brokers' session leases can be long:
     * a loaded machine then does not cost them their sessions (and their commits) mid-write.
     */
    private static final Duration LEASE_TTL = Duration.ofSeconds(6);

    @Test
    void pipelinedWritesStayInOrderWhileOwnershipMovesBetweenBrokers() throws Exception {
        try (LocalCluster cluster = LocalCluster.builder("write-order").brokers(3).leaseTtl(LEASE_TTL)
                .proxyCommand(JavaCommand.ofCurrentClasspath())
                .start();
             Client etcd = Client.builder().endpoints(cluster.etcdEndpoint()).build()) {
            String topic = "ordered";
            cluster.createTopic(topic, 1);
            ProxyProcess proxy = cluster.startProxy();
            OwnershipMover mover = new OwnershipMover(etcd, new KeySchema(cluster.prefix()));
            AtomicInteger handovers = new AtomicInteger();
            List<Future<RecordMetadata>> acks = new ArrayList<>();
            double clientRetries;
            Thread moving = new Thread(() -> {
                try {
                    while (!Thread.currentThread().isInterrupted()) {
                        if (mover.handOver(topic, 0).released()) {
                            handovers.incrementAndGet();
                        }
                        Thread.sleep(HANDOVER_EVERY.toMillis());
                    }
                } catch (InterruptedException e) {
                    // Writing is done.
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, "handovers");
            try (KafkaProducer<String, String> producer = producer(proxy.address())) {
                moving.start();
                for (int i = 0; i < RECORDS; i++) {
                    acks.add(producer.send(new ProducerRecord<>(topic, 0, null, Integer.toString(i))));
                    if (i % 2 == 0) {
                        Thread.sleep(1);
                    }
                }
                producer.flush();
                clientRetries = retries(producer);
            } finally {
                moving.interrupt();
                moving.join(10_000);
            }
            assertThat(new PrometheusScrape(proxy.adminUrl()).value("leasehold_requests_retries_given_up_total",
                    "api=\"Produce\"")).as("partitions the proxy stopped retrying (its log says why)").isNotPositive();
            assertThat(clientRetries).as("records the producer itself sent again (an error reached it: see its log)")
                    .isZero();
            long previous = -1;
            for (int i = 0; i < acks.size(); i++) {
                long offset = acks.get(i).get(30, TimeUnit.SECONDS).offset();
                assertThat(offset).as("offset of record %d, sent after one at offset %d", i, previous)
                        .isGreaterThan(previous);
                previous = offset;
            }
            assertThat(handovers.get()).as("ownership moved while writing").isGreaterThan(10);
            assertThat(readAll(proxy.address(), topic)).containsExactlyElementsOf(
                    java.util.stream.IntStream.range(0, RECORDS).mapToObj(Integer::toString).toList());
            System.out.printf("write order: %d records, %d handovers%n", RECORDS, handovers.get());
        }
    }

    private static double retries(KafkaProducer<String, String> producer) {
        return producer.metrics().entrySet().stream()
                .filter(e -> e.getKey().name().equals("record-retry-total")
                        && e.getKey().group().equals("producer-metrics"))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
                .sum();
    }

    private static KafkaProducer<String, String> producer(String bootstrap) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5);
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, 256);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        return new KafkaProducer<>(p);
    }

    private static List<String> readAll(String bootstrap, String topic) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (values.size() < RECORDS && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    values.add(record.value());
                }
            }
        }
        return values;
    }
}
