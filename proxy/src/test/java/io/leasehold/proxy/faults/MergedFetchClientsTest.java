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
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.LongStream;
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
 * A Java consumer that seeks while the proxy holds reads ahead of the owners reads from where it
 * sought.
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
    private static final Pattern READ_AHEADS_USED =
            Pattern.compile("(?m)^leasehold_fetch_read_aheads_total\\{[^}]*outcome=\"partition_used\"[^}]*} (\\S+)$");

    private LocalCluster cluster;
    private ProxyProcess proxy;

    @BeforeAll
    void startCluster() {
        // Every buffer of a merged answer (slices of the owners' frames) is checked for leaks on release.
        List<String> jvm = new ArrayList<>(JavaCommand.DEFAULT_JVM_OPTIONS);
        jvm.add("-Dio.netty.leakDetection.level=paranoid");
        cluster = LocalCluster.builder("merged-fetch").brokers(1).leaseTtl(TTL)
                .proxyCommand(JavaCommand.ofCurrentClasspath(jvm))
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
     * A Java consumer reads half of every partition from the start, so the proxy reads ahead of
     * each owner at the offsets it will ask next; then, with those reads ahead held, it seeks
     * partitions back, forward and nowhere, and reads on to the end: from each seek it gets every
     * record once, in offset order, each the record written at that offset, none skipped, none
     * twice. The proxy's metrics show that reads ahead were used.
     */
    @Test
    void aJavaConsumerThatSeeksWhileReadsAheadAreHeldReadsFromWhereItSoughtInOrderWithNothingSkippedOrTwice()
            throws Exception {
        String topic = "reseek";
        cluster.createTopic(topic, PARTITIONS);
        List<Integer> all = List.of(0, 1, 2, 3, 4, 5);
        int perPartition = 200;
        try (KafkaProducer<String, String> producer = producer()) {
            // Record i goes to partition i % 6, so offset k of partition p holds record k * 6 + p.
            write(producer, topic, "r", all, perPartition * PARTITIONS);
        }
        Map<Integer, Integer> owners = ClusterReads.awaitEveryPartitionOwned(cluster, topic, PARTITIONS,
                Duration.ofSeconds(60));
        assertThat(new HashSet<>(owners.values())).as("owners of the partitions").hasSizeGreaterThanOrEqualTo(2);
        double usedBefore = readAheadPartitionsUsed();
        Properties properties = new Properties();
        properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, proxy.address());
        properties.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100);
        // Small fetches: many reads ahead in turn, each of a few batches.
        properties.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 8 * 1024);
        properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        properties.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        properties.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(properties)) {
            List<TopicPartition> partitions = all.stream().map(p -> new TopicPartition(topic, p)).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<Integer, List<ConsumerRecord<String, String>>> first = readUntil(consumer, perPartition / 2);
            // Paused, the consumer takes the answer to its fetch in flight (the proxy then reads ahead
            // again) and sends no other: the seeks below meet reads ahead held at the old positions.
            consumer.pause(partitions);
            assertThat(consumer.poll(Duration.ofMillis(200))).as("records of paused partitions").isEmpty();
            Map<Integer, Long> from = new HashMap<>();
            for (int p : all) {
                TopicPartition tp = new TopicPartition(topic, p);
                long position = consumer.position(tp);
                assertThat(offsets(first.get(p))).as("first read of partition %d", p)
                        .isEqualTo(LongStream.range(0, position).boxed().toList());
                long seek = switch (p) {
                    case 0 -> 0;
                    case 1 -> Math.min(perPartition - 1, position + 20);
                    case 3 -> position / 2;
                    case 4 -> perPartition - 1;
                    default -> position;
                };
                from.put(p, seek);
                if (seek != position) {
                    consumer.seek(tp, seek);
                }
            }
            consumer.resume(partitions);
            Map<Integer, List<ConsumerRecord<String, String>>> again = readUntil(consumer, perPartition);
            for (int p : all) {
                List<ConsumerRecord<String, String>> read = again.get(p);
                assertThat(offsets(read)).as("partition %d read on from offset %d", p, from.get(p))
                        .isEqualTo(LongStream.range(from.get(p), perPartition).boxed().toList());
                for (ConsumerRecord<String, String> record : read) {
                    assertThat(record.value()).as("partition %d offset %d", p, record.offset())
                            .startsWith("r-" + (record.offset() * PARTITIONS + p) + "-");
                }
            }
        }
        assertThat(readAheadPartitionsUsed()).as("partitions answered from reads ahead").isGreaterThan(usedBefore);
    }

    private static List<Long> offsets(List<ConsumerRecord<String, String>> records) {
        return records.stream().map(ConsumerRecord::offset).toList();
    }

    /** Polls until every partition's records reach offset {@code end}; the records each partition gave, in order. */
    private static Map<Integer, List<ConsumerRecord<String, String>>> readUntil(KafkaConsumer<String, String> consumer,
                                                                               int end) {
        Map<Integer, List<ConsumerRecord<String, String>>> read = new HashMap<>();
        long deadline = System.nanoTime() + READ_ALL_WITHIN.toNanos();
        while (consumer.assignment().stream().anyMatch(tp -> consumer.position(tp) < end)) {
            assertThat(System.nanoTime()).as("all partitions read to %d within %s", end, READ_ALL_WITHIN)
                    .isLessThan(deadline);
            for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                read.computeIfAbsent(record.partition(), p -> new ArrayList<>()).add(record);
            }
        }
        consumer.assignment().forEach(tp -> read.putIfAbsent(tp.partition(), new ArrayList<>()));
        return read;
    }

    private double readAheadPartitionsUsed() throws Exception {
        HttpResponse<String> metrics = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create(proxy.adminUrl() + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
        Matcher matcher = READ_AHEADS_USED.matcher(metrics.body());
        return matcher.find() ? Double.parseDouble(matcher.group(1)) : 0;
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
        return write(producer, "merged", prefix, partitions, count);
    }

    private static List<String> write(KafkaProducer<String, String> producer, String topic, String prefix,
                                      List<Integer> partitions, int count) throws Exception {
        List<String> values = new ArrayList<>();
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String value = prefix + "-" + i + "-" + PADDING;
            values.add(value);
            acks.add(producer.send(new ProducerRecord<>(topic, partitions.get(i % partitions.size()), null, value)));
        }
        for (Future<RecordMetadata> ack : acks) {
            ack.get(60, TimeUnit.SECONDS);
        }
        return values;
    }

}
