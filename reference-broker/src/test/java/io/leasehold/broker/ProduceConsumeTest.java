package io.leasehold.broker;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.routing.testing.EtcdExtension;
import io.leasehold.routing.testing.EtcdServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(EtcdExtension.class)
class ProduceConsumeTest {

    private BrokerCluster cluster;

    @BeforeEach
    void startBrokers(EtcdServer etcd) throws Exception {
        cluster = new BrokerCluster(etcd);
        cluster.start(1);
        cluster.start(2);
    }

    @AfterEach
    void stopBrokers() {
        cluster.close();
    }

    @Test
    void stockDefaultProducerRecordsAreReadBackInOrderWithContiguousOffsets() throws Exception {
        cluster.createTopic("orders", 3);
        Map<Integer, List<Long>> ackedOffsets = new HashMap<>();
        try (KafkaProducer<String, String> producer = cluster.defaultProducer(cluster.bootstrap())) {
            List<Future<RecordMetadata>> acks = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                acks.add(producer.send(new ProducerRecord<>("orders", i % 3, "k" + i, "v" + i)));
            }
            for (Future<RecordMetadata> ack : acks) {
                RecordMetadata metadata = ack.get();
                ackedOffsets.computeIfAbsent(metadata.partition(), p -> new ArrayList<>()).add(metadata.offset());
            }
        }
        for (int partition = 0; partition < 3; partition++) {
            assertThat(ackedOffsets.get(partition)).containsExactlyElementsOf(range(0, 100));
        }

        List<ConsumerRecord<String, String>> records = readAll(cluster.consumer(null), "orders", 3, 300);
        for (int partition = 0; partition < 3; partition++) {
            int p = partition;
            List<ConsumerRecord<String, String>> inPartition = records.stream().filter(r -> r.partition() == p).toList();
            assertThat(inPartition).extracting(ConsumerRecord::offset).containsExactlyElementsOf(range(0, 100));
            assertThat(inPartition).extracting(ConsumerRecord::value)
                    .containsExactlyElementsOf(range(0, 100).stream().map(i -> "v" + (i * 3 + p)).toList());
        }
    }

    @Test
    void consumerGroupCommitsAndASecondMemberResumesAfterTheCommittedOffset() throws Exception {
        cluster.createTopic("events", 2);
        try (KafkaProducer<String, String> producer = cluster.defaultProducer(cluster.bootstrap())) {
            for (int i = 0; i < 40; i++) {
                producer.send(new ProducerRecord<>("events", i % 2, null, "first-" + i));
            }
            producer.flush();
        }
        List<String> firstRead = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = cluster.consumer("readers")) {
            consumer.subscribe(List.of("events"));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (firstRead.size() < 40 && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> firstRead.add(r.value()));
            }
            consumer.commitSync();
            assertThat(consumer.committed(Set.of(new TopicPartition("events", 0), new TopicPartition("events", 1))))
                    .extractingFromEntries(entry -> entry.getValue().offset())
                    .containsOnly(20L);
        }
        assertThat(firstRead).hasSize(40);

        try (KafkaProducer<String, String> producer = cluster.defaultProducer(cluster.bootstrap())) {
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord<>("events", i % 2, null, "second-" + i));
            }
            producer.flush();
        }
        List<String> secondRead = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = cluster.consumer("readers")) {
            consumer.subscribe(List.of("events"));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (secondRead.size() < 10 && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> secondRead.add(r.value()));
            }
        }
        assertThat(secondRead).containsExactlyInAnyOrderElementsOf(
                range(0, 10).stream().map(i -> "second-" + i).toList());
    }

    static List<ConsumerRecord<String, String>> readAll(KafkaConsumer<String, String> consumer, String topic,
                                                        int partitions, int expected) {
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        try (consumer) {
            List<TopicPartition> assigned = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                assigned.add(new TopicPartition(topic, p));
            }
            consumer.assign(assigned);
            consumer.seekToBeginning(assigned);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (records.size() < expected && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        return records;
    }

    static List<Long> range(long from, long to) {
        List<Long> values = new ArrayList<>();
        for (long i = from; i < to; i++) {
            values.add(i);
        }
        return values;
    }
}
