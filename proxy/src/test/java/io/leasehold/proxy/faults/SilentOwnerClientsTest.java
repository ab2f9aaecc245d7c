package io.leasehold.proxy.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.leasehold.testing.BrokerProcess;
import io.leasehold.testing.LocalCluster;
import io.leasehold.testing.ProxyProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Issue 13's owner stall in the single-node presentation, with real clients of every stack on
 * one topic: a Java producer (not idempotent), an idempotent Java producer, kcat and kafkajs
 * write through one proxy (owner deadline 1 s) to three reference brokers (6 s leases). One
 * owner is SIGSTOPped for less than its lease, another past its lease, a third SIGKILLed. While
 * each owner is stopped, every client keeps getting acknowledgements (they can only be for the
 * other owners' partitions, or for partitions that moved to them): counted from one second
 * after the owner deadline to the fault's end. After all of it no client failed a record, every
 * acknowledged record is in the topic, the idempotent producer's exactly once and in its order.
 */
// Serial: the stall windows are a few seconds long and four clients must make progress in each.
@Tag("serial")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SilentOwnerClientsTest {

    private static final Duration TTL = Duration.ofSeconds(6);
    private static final Duration OWNER_DEADLINE = Duration.ofSeconds(1);
    /** Acknowledgements are counted from this long after the owner stops until it is back. */
    private static final Duration COUNTED_FROM = OWNER_DEADLINE.plusSeconds(1);
    private static final int PARTITIONS = 6;
    /** Fewer than a second's worth of any writer's records on the live owners' partitions. */
    private static final int PROGRESS_DURING_FAULT = 3;
    private static final Duration PROGRESS = Duration.ofSeconds(60);
    private static final String TOPIC = "silent-owner";

    /** The idempotent producer's sequence numbers per partition, in log order (filled by {@link #readAll}). */
    private final Map<Integer, List<Long>> orderedIdempotent = new TreeMap<>();
    private LocalCluster cluster;
    private ProxyProcess proxy;

    @BeforeAll
    void startCluster() {
        cluster = LocalCluster.builder("silent-owner").brokers(3).leaseTtl(TTL).start();
        proxy = cluster.startProxy(Map.of("LEASEHOLD_PRESENTATION_PRODUCE_OWNER_DEADLINE",
                OWNER_DEADLINE.toMillis() + "ms"));
    }

    @AfterAll
    void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** What each writer had acknowledged at one instant. */
    private record Acks(int javaPlain, int javaIdempotent, long kcat, int kafkajs) {
        Acks since(Acks before) {
            return new Acks(javaPlain - before.javaPlain, javaIdempotent - before.javaIdempotent, kcat - before.kcat,
                    kafkajs - before.kafkajs);
        }
    }

    @Test
    void everyClientKeepsBeingAcknowledgedWhileAnOwnerIsPausedOrKilledAndNoAcknowledgedRecordIsLost()
            throws Exception {
        cluster.createTopic(TOPIC, PARTITIONS);
        JavaWriter javaPlain = new JavaWriter("java", proxy.address(), TOPIC, PARTITIONS, 10, Map.of());
        JavaWriter javaIdempotent = new JavaWriter("java-idempotent", proxy.address(), TOPIC, PARTITIONS, 10,
                Map.of(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true));
        // Keyed: kcat fed from stdin sends about one batch a second, and unkeyed that batch goes to
        // one sticky partition; in the 2.5 s counted of the short pause a CI run had both of kcat's
        // batches on the paused owner's partitions and counted 0 acknowledgements.
        KcatWriter kcat = new KcatWriter(proxy.address(), TOPIC, 20, cluster.logDir(), true);
        KafkajsWriter kafkajs = new KafkajsWriter(proxy.address(), TOPIC, 20, cluster.logDir());
        Callable<Acks> acks = () -> new Acks(javaPlain.acked().size(), javaIdempotent.acked().size(),
                kcat.delivered(), kafkajs.acked().size());
        List<String> report = new ArrayList<>();
        try {
            Acks started = acks.call();
            await().atMost(PROGRESS).until(() -> {
                Acks now = acks.call();
                return now.javaPlain() >= 50 && now.javaIdempotent() >= 50 && now.kcat() >= 50 && now.kafkajs() >= 20;
            });
            Map<Integer, Integer> owners = ClusterReads.awaitEveryPartitionOwned(cluster, TOPIC, PARTITIONS, PROGRESS);
            report.add("before the faults: " + acks.call().since(started) + ", owners " + owners);

            BrokerProcess shortPause = cluster.broker(owners.get(0));
            Acks shortPauseProgress = duringFault(acks, () -> shortPause.pauseFor(TTL.minusMillis(1_500)));
            report.add("paused " + shortPause + " for less than its lease: " + shortPauseProgress);

            BrokerProcess longPause = cluster.broker(otherOwner(shortPause.id()));
            Acks longPauseProgress = duringFault(acks, () -> longPause.pauseFor(TTL.plusSeconds(2)));
            report.add("paused " + longPause + " past its lease: " + longPauseProgress);

            BrokerProcess killed = cluster.broker(otherOwner(longPause.id()));
            Acks killProgress = duringFault(acks, () -> {
                killed.kill();
                Thread.sleep(TTL.toMillis());
            });
            report.add("killed " + killed + ": " + killProgress);
            Acks beforeEnd = acks.call();
            await().atMost(PROGRESS).until(() -> acks.call().since(beforeEnd).javaIdempotent() >= 50);

            javaPlain.close();
            javaIdempotent.close();
            kcat.finish();
            boolean kafkajsExited = kafkajs.finish();
            report.forEach(System.out::println);

            assertThat(javaPlain.failures()).as("records the Java producer failed").isEmpty();
            assertThat(javaIdempotent.failures()).as("records the idempotent Java producer failed").isEmpty();
            assertThat(kcat.deliveryFailures()).as("records kcat failed, see " + kcat.log()).isEmpty();
            assertThat(kcat.exitCode()).as("kcat exit code, see " + kcat.log()).isZero();
            assertThat(kafkajs.failures()).as("records kafkajs failed, see " + kafkajs.log()).isEmpty();
            assertThat(kafkajsExited).as("kafkajs answered every record and exited, see " + kafkajs.log()).isTrue();
            for (Acks progress : List.of(shortPauseProgress, longPauseProgress, killProgress)) {
                assertThat(progress.javaPlain()).as("Java acknowledgements while an owner was stopped: " + report)
                        .isGreaterThanOrEqualTo(PROGRESS_DURING_FAULT);
                assertThat(progress.javaIdempotent()).as("idempotent Java acknowledgements while an owner was stopped: "
                        + report).isGreaterThanOrEqualTo(PROGRESS_DURING_FAULT);
                assertThat(progress.kcat()).as("kcat acknowledgements while an owner was stopped: " + report)
                        .isGreaterThanOrEqualTo(PROGRESS_DURING_FAULT);
                assertThat(progress.kafkajs()).as("kafkajs acknowledgements while an owner was stopped: " + report)
                        .isGreaterThanOrEqualTo(PROGRESS_DURING_FAULT);
            }

            Map<String, List<Integer>> written = readAll();
            assertThat(written.keySet()).as("acknowledged records missing from the topic")
                    .containsAll(javaPlain.acked()).containsAll(javaIdempotent.acked()).containsAll(kcat.sent())
                    .containsAll(kafkajs.acked());
            for (String value : javaIdempotent.acked()) {
                assertThat(written.get(value)).as("partitions holding the idempotent producer's " + value).hasSize(1);
            }
            assertThat(idempotentOrderBreaks()).as("idempotent records out of their send order").isEmpty();
        } finally {
            javaPlain.close();
            javaIdempotent.close();
            kcat.kill();
            kafkajs.kill();
        }
    }

    /** What each writer had acknowledged from {@link #COUNTED_FROM} into {@code fault} until it ended. */
    private static Acks duringFault(Callable<Acks> acks, FaultAction fault) throws Exception {
        Thread faulting = new Thread(() -> {
            try {
                fault.run();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "fault");
        faulting.start();
        Thread.sleep(COUNTED_FROM.toMillis());
        Acks from = acks.call();
        faulting.join();
        return acks.call().since(from);
    }

    /** A fault that lasts until it returns. */
    private interface FaultAction {
        void run() throws InterruptedException;
    }

    /** A live broker other than {@code except} that owns a partition of the topic. */
    private int otherOwner(int except) {
        return await().atMost(PROGRESS).until(() -> IntStream.range(0, PARTITIONS)
                .map(p -> cluster.partitionOwner(TOPIC, p).orElse(except)).filter(id -> id != except)
                .filter(id -> cluster.broker(id).isAlive()).findFirst(), java.util.OptionalInt::isPresent).getAsInt();
    }

    /**
     * Every record of the topic (read through the proxy, up to each partition's end offset once the
     * writers are done), as value to the partitions it is in, once per copy. Not a count of records:
     * writers that resend a timed-out write leave duplicates, which a count would take for the
     * records still unread.
     */
    private Map<String, List<Integer>> readAll() {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, proxy.address());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        Map<String, List<Integer>> values = new HashMap<>();
        orderedIdempotent.clear();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
            List<TopicPartition> partitions = IntStream.range(0, PARTITIONS)
                    .mapToObj(partition -> new TopicPartition(TOPIC, partition)).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, PROGRESS);
            long deadline = System.nanoTime() + PROGRESS.toNanos();
            while (ends.entrySet().stream().anyMatch(end -> consumer.position(end.getKey()) < end.getValue())
                    && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    String value = new String(record.value(), StandardCharsets.UTF_8);
                    values.computeIfAbsent(value, k -> new ArrayList<>()).add(record.partition());
                    if (value.startsWith("java-idempotent-")) {
                        orderedIdempotent.computeIfAbsent(record.partition(), k -> new ArrayList<>())
                                .add(Long.parseLong(value.split("-")[2]));
                    }
                }
            }
        }
        return values;
    }

    /** "partition: a then b" for each place the idempotent producer's records are not in send order. */
    private List<String> idempotentOrderBreaks() {
        List<String> breaks = new ArrayList<>();
        orderedIdempotent.forEach((partition, seqs) -> {
            for (int i = 1; i < seqs.size(); i++) {
                if (seqs.get(i) <= seqs.get(i - 1)) {
                    breaks.add(partition + ": " + seqs.get(i - 1) + " then " + seqs.get(i));
                }
            }
        });
        return breaks;
    }
}
