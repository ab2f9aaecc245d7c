package io.leasehold.proxy.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.testing.BrokerProcess;
import io.leasehold.testing.JavaCommand;
import io.leasehold.testing.KafkajsConsumer;
import io.leasehold.testing.LocalCluster;
import io.leasehold.testing.ProxyProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Merged fetches in the single-node presentation with real clients of every stack: etcd, three
 * reference brokers and one proxy; a topic whose partitions the brokers own between them. Every
 * reader long-polls with {@code fetch.max.wait.ms} 5000 over all partitions, and one owner never
 * gets anything new. The Java consumer and one kcat ask for at most 20000 bytes per fetch, and
 * that kcat refuses any response above 20512 bytes ({@code receive.message.max.bytes}). The
 * records (1 KiB each) are far more than a few fetches carry, so readers that waited for the idle
 * owner's long poll on every fetch, or a kcat that kept reconnecting on oversize answers, could not
 * read them all within the bounded wait. Then the idle owner is SIGSTOPped (its lease outlives the
 * pause, so it stays the owner) while more records go to the others: every reader reads those too
 * while it is still stopped. The idle owner coordinates neither consumer group where possible.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MergedFetchClientsTest {
    private static final Duration TTL = Duration.ofSeconds(120);
    private static final int PARTITIONS = 6;
    private static final int BROKERS = 3;
    private static final int RECORDS = 400;
    private static final int FETCH_MAX_WAIT_MS = 5000;
    private static final int FETCH_MAX_BYTES = 20_000;
    /** Reading {@link #RECORDS} at most 20000 bytes a fetch takes ≥ 20 fetches: ≥ 100 s if each waited 5 s. */
    private static final Duration READ_ALL_WITHIN = Duration.ofSeconds(60);
    private static final String PADDING = "x".repeat(1000);

    private LocalCluster cluster;
    private ProxyProcess proxy;

    @BeforeAll
    void startCluster() {
        // Every buffer of a merged answer (slices of the owners' frames) is checked for leaks on release.
        List<String> jvm = new ArrayList<>(JavaCommand.DEFAULT_JVM_OPTIONS);
        jvm.add("-Dio.netty.leakDetection.level=paranoid");
        cluster = LocalCluster.builder("merged-fetch").brokers(1).leaseTtl(TTL)
                .proxyCommand(new JavaCommand(System.getProperty("java.class.path"), jvm))
                .start();
        // One at a time: on two shared cores three JVMs starting at once can miss the brokers' lease grant.
        for (int id = 2; id <= BROKERS; id++) {
            cluster.startBroker(id);
        }
        proxy = cluster.startProxy();
    }

    @AfterAll
    void stopCluster() throws IOException {
        try {
            if (cluster != null) {
                ProxyExits.assertCleanExits(cluster);
            }
        } finally {
            if (cluster != null) {
                cluster.close();
            }
        }
    }

    @Test
    void everyStackReadsOwnersWithDataWithoutWaitingForTheIdleOneWithinItsByteLimitEvenWhileItIsStopped()
            throws Exception {
        String topic = "merged";
        cluster.createTopic(topic, PARTITIONS);
        JavaGroupReader java = null;
        KcatReader kcat = null;
        KcatReader smallKcat = null;
        KafkajsConsumer kafkajs = null;
        try (KafkaProducer<String, String> producer = producer()) {
            Set<String> written = new HashSet<>(write(producer, "seed", List.of(0, 1, 2, 3, 4, 5), PARTITIONS));
            Map<Integer, Integer> owners = ClusterReads.awaitEveryPartitionOwned(cluster, topic, PARTITIONS, Duration.ofSeconds(60));
            assertThat(new HashSet<>(owners.values())).as("owners of the partitions").hasSizeGreaterThanOrEqualTo(2);

            java = new JavaGroupReader(proxy.address(), topic, "merged-group", 1, FETCH_MAX_WAIT_MS,
                    Map.of(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, FETCH_MAX_BYTES));
            kcat = new KcatReader(proxy.address(), topic, FETCH_MAX_WAIT_MS, cluster.logDir(), "merged", List.of());
            smallKcat = new KcatReader(proxy.address(), topic, FETCH_MAX_WAIT_MS, cluster.logDir(), "merged-small",
                    List.of("message.max.bytes=" + FETCH_MAX_BYTES, "fetch.max.bytes=" + FETCH_MAX_BYTES,
                            "receive.message.max.bytes=" + (FETCH_MAX_BYTES + 512)));
            kafkajs = KafkajsConsumer.start("kafkajs-merged", proxy.address(), topic, "kafkajs-merged",
                    Duration.ofMillis(FETCH_MAX_WAIT_MS), cluster.logDir());
            ReadLog kafkajsReads = new ReadLog("kafkajs consumer");
            List<ReadLog> readers = List.of(java.log(), kcat.log(), smallKcat.log(), kafkajsReads);
            ClusterReads.awaitRead(readers, kafkajs, written, READ_ALL_WITHIN);

            int idle = idleOwner(owners, "kafkajs-merged", "merged-group");
            List<Integer> busy = owners.entrySet().stream().filter(e -> e.getValue() != idle).map(Map.Entry::getKey)
                    .toList();
            written.addAll(write(producer, "busy", busy, RECORDS));
            ClusterReads.awaitRead(readers, kafkajs, written, READ_ALL_WITHIN);

            BrokerProcess stopped = cluster.broker(idle);
            stopped.pause();
            try {
                written.addAll(write(producer, "stall", busy, RECORDS));
                ClusterReads.awaitRead(readers, kafkajs, written, READ_ALL_WITHIN);
                int itsPartition = owners.entrySet().stream().filter(e -> e.getValue() == idle).findFirst()
                        .orElseThrow().getKey();
                assertThat(cluster.partitionOwner(topic, itsPartition)).as("the stopped broker still owns its partitions")
                        .isEqualTo(OptionalInt.of(idle));
            } finally {
                stopped.resume();
            }

            assertThat(java.errors()).as("what poll() threw").isEmpty();
            assertThat(kcat.isAlive()).as("kcat still running, see " + kcat.stderr()).isTrue();
            assertThat(smallKcat.isAlive()).as("small kcat still running, see " + smallKcat.stderr()).isTrue();
            assertThat(Files.readString(smallKcat.stderr())).as("oversize answers kcat refused, see " + smallKcat.stderr())
                    .doesNotContain("Invalid response size");
            assertThat(kafkajs.errors()).as("errors kafkajs gave up on, see " + kafkajs.log()).isEmpty();
            System.out.printf("merged fetch: owners %s, idle and then stopped %d; %d records read by each of %s%n",
                    owners, idle, written.size(), readers.stream().map(ReadLog::reader).toList());
        } finally {
            if (java != null) {
                java.close();
            }
            if (kcat != null) {
                kcat.close();
            }
            if (smallKcat != null) {
                smallKcat.close();
            }
            if (kafkajs != null) {
                kafkajs.close();
            }
        }
    }

    /**
     * The owner to leave idle and then stop: one coordinating neither group if there is one, else
     * one not coordinating {@code mustKeep} (kafkajs waits for its heartbeats between fetches;
     * the Java consumer fetches on while its coordinator is away).
     */
    private int idleOwner(Map<Integer, Integer> owners, String mustKeep, String mayLose) {
        OptionalInt keep = cluster.groupOwner(mustKeep);
        OptionalInt lose = cluster.groupOwner(mayLose);
        List<Integer> candidates = new HashSet<>(owners.values()).stream()
                .filter(id -> keep.isEmpty() || keep.getAsInt() != id).sorted().toList();
        return candidates.stream().filter(id -> lose.isEmpty() || lose.getAsInt() != id).findFirst()
                .orElse(candidates.get(0));
    }

    private KafkaProducer<String, String> producer() {
        Properties properties = new Properties();
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, proxy.address());
        properties.put(ProducerConfig.ACKS_CONFIG, "all");
        properties.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        properties.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        return new KafkaProducer<>(properties);
    }

    /** Writes {@code count} 1 KiB records spread over {@code partitions}; returns their values once all are acknowledged. */
    private static List<String> write(KafkaProducer<String, String> producer, String prefix, List<Integer> partitions,
                                      int count) throws Exception {
        List<String> values = new ArrayList<>();
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String value = prefix + "-" + i + "-" + PADDING;
            values.add(value);
            acks.add(producer.send(new ProducerRecord<>("merged", partitions.get(i % partitions.size()), null, value)));
        }
        for (Future<RecordMetadata> ack : acks) {
            ack.get(60, TimeUnit.SECONDS);
        }
        return values;
    }

}
