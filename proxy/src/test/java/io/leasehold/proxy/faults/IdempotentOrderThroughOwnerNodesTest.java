package io.leasehold.proxy.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.testing.BrokerProcess;
import io.leasehold.testing.JavaCommand;
import io.leasehold.testing.LocalCluster;
import io.leasehold.testing.ProxyProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
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
 * Idempotent Java producers pipelining five requests each (acks=all) through a node-per-owner
 * proxy in front of three reference brokers, into partitions owned before they start: every
 * producer opens a connection per owner node, and the proxy opens that connection's backend
 * connection on its first produce request, while the producer already has the next ones on the
 * way. The brokers must see each producer's batches of a partition in the order sent: a broker
 * that refuses a batch as out of sequence logs it, and the producers' silent retries would hide
 * it otherwise. An idempotent kcat producer (librdkafka, in-flight 5) writes alongside. Every
 * partition must then hold each producer's records in order, without a gap or a duplicate.
 */
class IdempotentOrderThroughOwnerNodesTest {

    private static final int FIRST_BROKER_ID = 1;
    private static final int BROKERS = 3;
    private static final int PARTITIONS = 6;
    private static final int PRODUCERS = 4;
    private static final int RECORDS_PER_PRODUCER = 3_000;
    private static final String REFUSED_FOR_ORDER = "OUT_OF_ORDER_SEQUENCE_NUMBER";
    private static final int KCAT_KEYS = 12;
    private static final int KCAT_RECORDS = 6_000;

    @Test
    void idempotentJavaAndKcatProducersBatchesReachTheOwnersInSendOrderThroughOwnerNodes() throws Exception {
        try (LocalCluster cluster = LocalCluster.builder("idempotent-order").brokers(1).leaseTtl(Duration.ofSeconds(5))
                .proxyCommand(JavaCommand.ofCurrentClasspath())
                .start()) {
            // One at a time: on two shared cores JVMs starting at once can miss the brokers' lease grant.
            for (int id = FIRST_BROKER_ID + 1; id < FIRST_BROKER_ID + BROKERS; id++) {
                cluster.startBroker(id);
            }
            ProxyProcess proxy = cluster.startProxy(NodePerOwnerEnvironment.of(FIRST_BROKER_ID, BROKERS));
            String topic = "ordered-nodes";
            cluster.createTopic(topic, PARTITIONS);
            claimEveryPartition(proxy.address(), topic);
            Map<Integer, Integer> owners = ClusterReads.awaitEveryPartitionOwned(cluster, topic, PARTITIONS,
                    Duration.ofSeconds(60));
            assertThat(new HashSet<>(owners.values())).as("owners of the partitions").hasSizeGreaterThanOrEqualTo(2);

            List<KafkaProducer<String, String>> producers = new ArrayList<>();
            List<Future<RecordMetadata>> acks = new ArrayList<>();
            Path kcatLog = cluster.logDir().resolve("kcat-idempotent.log");
            Process kcat = startKcat(proxy.address(), topic, cluster.logDir(), kcatLog);
            try {
                for (int p = 0; p < PRODUCERS; p++) {
                    producers.add(new KafkaProducer<>(idempotentProducer(proxy.address(), "ordered-" + p)));
                }
                // Everything at once, so batches pile up while each producer connects to the owner nodes.
                for (int i = 0; i < RECORDS_PER_PRODUCER; i++) {
                    for (int p = 0; p < PRODUCERS; p++) {
                        acks.add(producers.get(p).send(
                                new ProducerRecord<>(topic, i % PARTITIONS, "producer-" + p, Integer.toString(i))));
                    }
                }
                producers.forEach(KafkaProducer::flush);
                for (Future<RecordMetadata> ack : acks) {
                    ack.get(60, TimeUnit.SECONDS);
                }
                assertThat(kcat.waitFor(90, TimeUnit.SECONDS)).as("kcat delivered and exited, see %s", kcatLog).isTrue();
                assertThat(kcat.exitValue()).as("kcat exit code, see %s", kcatLog).isZero();
                assertThat(Files.readAllLines(kcatLog)).as("kcat output").noneMatch(line -> line.contains("Delivery failed"));
            } finally {
                producers.forEach(producer -> producer.close(Duration.ofSeconds(10)));
                kcat.destroyForcibly().waitFor();
            }

            for (BrokerProcess broker : cluster.brokers()) {
                assertThat(refusedForOrder(broker)).as("batches broker %d refused as out of sequence", broker.id())
                        .isEmpty();
            }
            Map<String, List<Integer>> written = readAll(proxy.address(), topic,
                    PRODUCERS * RECORDS_PER_PRODUCER + KCAT_RECORDS);
            for (int partition = 0; partition < PARTITIONS; partition++) {
                List<Integer> sent = sentTo(partition);
                for (int p = 0; p < PRODUCERS; p++) {
                    assertThat(written.get(partition + "/producer-" + p))
                            .as("records of producer %d in partition %d, in log order", p, partition)
                            .containsExactlyElementsOf(sent);
                }
            }
            for (int key = 0; key < KCAT_KEYS; key++) {
                String suffix = "/kcat-" + key;
                List<String> partitionsOfKey = written.keySet().stream().filter(k -> k.endsWith(suffix)).toList();
                assertThat(partitionsOfKey).as("partitions holding kcat key %d", key).hasSize(1);
                int first = key;
                assertThat(written.get(partitionsOfKey.get(0))).as("kcat records of key %d, in log order", key)
                        .containsExactlyElementsOf(IntStream.range(0, KCAT_RECORDS)
                                .filter(i -> i % KCAT_KEYS == first).boxed().toList());
            }
            System.out.printf("idempotent order: %d Java producers x %d records and kcat %d records over %d partitions,"
                    + " owners %s%n", PRODUCERS, RECORDS_PER_PRODUCER, KCAT_RECORDS, PARTITIONS, owners);
        }
    }

    /** What each producer sent to {@code partition}, in send order. */
    private static List<Integer> sentTo(int partition) {
        return IntStream.range(0, RECORDS_PER_PRODUCER).filter(i -> i % PARTITIONS == partition).boxed().toList();
    }

    /** One record to every partition from a plain producer, so that every partition has an owner first. */
    private static void claimEveryPartition(String bootstrap, String topic) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            for (int partition = 0; partition < PARTITIONS; partition++) {
                producer.send(new ProducerRecord<>(topic, partition, "claim", "claim")).get(60, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * An idempotent kcat (librdkafka) producer, in-flight 5, of {@link #KCAT_RECORDS} values, each
     * keyed by its value modulo {@link #KCAT_KEYS} (a key lands on one partition), all read at once.
     */
    private static Process startKcat(String bootstrap, String topic, Path dir, Path log) throws IOException {
        Path input = dir.resolve("kcat-idempotent-input.txt");
        Files.write(input, IntStream.range(0, KCAT_RECORDS).mapToObj(i -> "kcat-" + (i % KCAT_KEYS) + ":" + i).toList());
        return new ProcessBuilder("kcat", "-P", "-b", bootstrap, "-t", topic, "-K:", "-X", "client.id=kcat-idempotent",
                "-X", "enable.idempotence=true", "-X", "acks=all", "-X", "max.in.flight=5", "-X", "linger.ms=5",
                "-X", "batch.size=1024").redirectInput(input.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
    }

    private static Properties idempotentProducer(String bootstrap, String clientId) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        // Small batches: many requests per partition in flight at once.
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, 1024);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        return p;
    }

    private static List<String> refusedForOrder(BrokerProcess broker) throws IOException {
        return Files.readAllLines(broker.process().stderrLog()).stream()
                .filter(line -> line.contains(REFUSED_FOR_ORDER)).toList();
    }

    /** Every record of {@code topic} but the claims, as values by "partition/key", in log order. */
    private static Map<String, List<Integer>> readAll(String bootstrap, String topic, int expected) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        Map<String, List<Integer>> values = new HashMap<>();
        int read = 0;
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
            List<TopicPartition> partitions = IntStream.range(0, PARTITIONS)
                    .mapToObj(partition -> new TopicPartition(topic, partition)).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (read < expected && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    if (!"claim".equals(record.key())) {
                        values.computeIfAbsent(record.partition() + "/" + record.key(), k -> new ArrayList<>())
                                .add(Integer.parseInt(record.value()));
                        read++;
                    }
                }
            }
        }
        return values;
    }
}
