package io.leasehold.proxy.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.leasehold.testing.BrokerProcess;
import io.leasehold.testing.JavaCommand;
import io.leasehold.testing.KafkajsConsumer;
import io.leasehold.testing.LocalCluster;
import io.leasehold.testing.ProxyProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 12's scenario with real clients of every stack: etcd, three reference brokers (2 s
 * leases) and two proxies. A Java consumer group, a kcat consumer and a kafkajs consumer read
 * through proxy A while a non-idempotent Java producer and a kcat producer, both with default
 * timeouts, write through proxy B. One broker is SIGKILLed, then another is SIGSTOPped past its
 * lease and resumed. Every reader must get every acknowledged record, no producer may fail a
 * record, no reader may go without a record for longer than the lease TTL + 2 s while the
 * producers keep writing, and every reader must read records written after each fault from all
 * of the fault's partitions (within 30 s; the time is reported: it includes the writers'
 * recovery). Runs with {@code fetch.max.wait.ms} 20 and with the default 500; the numbers per
 * client go to {@code target/failover-clients-report.md}.
 */
// Serial: asserts the longest read stall stays within the lease TTL plus a timing allowance.
@Tag("serial")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FailoverClientsTest {

    private static final Duration TTL = Duration.ofSeconds(2);
    private static final Duration RESUME_BOUND = TTL.plusSeconds(2);
    /** As in {@link FaultScenariosTest}: two shared cores starve JVMs for hundreds of ms at a time. */
    private static final Duration TIMING_ALLOWANCE = Duration.ofMillis(Long.getLong("leasehold.faults.timingAllowanceMs", 1000));
    private static final int PARTITIONS = 6;
    private static final Duration PROGRESS = Duration.ofSeconds(30);

    private final List<String> report = new ArrayList<>();
    private LocalCluster cluster;
    private ProxyProcess readProxy;
    private ProxyProcess writeProxy;

    @BeforeAll
    void startCluster() {
        List<String> jvm = new ArrayList<>(JavaCommand.DEFAULT_JVM_OPTIONS);
        jvm.add("-Dio.netty.leakDetection.level=paranoid");
        cluster = LocalCluster.builder("failover-clients").brokers(3).leaseTtl(TTL)
                .proxyCommand(JavaCommand.ofCurrentClasspath(jvm)).start();
        readProxy = cluster.startProxy();
        writeProxy = cluster.startProxy();
    }

    @AfterAll
    void stopCluster() throws IOException {
        try {
            Path target = Path.of("target", "failover-clients-report.md");
            Files.createDirectories(target.getParent());
            List<String> lines = new ArrayList<>(List.of(
                    "| fetch.max.wait.ms | client | records | duplicates | longest stall ms | new records of the killed broker's partitions read after ms | same, paused broker | failed |",
                    "|---|---|---|---|---|---|---|---|"));
            lines.addAll(report);
            Files.write(target, lines, StandardCharsets.UTF_8);
            lines.forEach(System.out::println);
            if (cluster != null) {
                ProxyExits.assertCleanExits(cluster);
            }
        } finally {
            if (cluster != null) {
                cluster.close();
            }
        }
    }

    @ParameterizedTest(name = "fetch.max.wait.ms {0}")
    @ValueSource(ints = {20, 500})
    void everyReaderGetsEveryAcknowledgedRecordAcrossABrokerKillAndAPausePastItsLease(int fetchMaxWaitMs)
            throws Exception {
        for (BrokerProcess broker : cluster.brokers()) {
            if (!broker.isAlive()) {
                cluster.startBroker(broker.id());
            }
        }
        String topic = "failover-" + fetchMaxWaitMs;
        cluster.createTopic(topic, PARTITIONS);
        Path logs = cluster.logDir();
        JavaWriter javaWriter = new JavaWriter(writeProxy.address(), topic, PARTITIONS, 10);
        KcatWriter kcatWriter = new KcatWriter(writeProxy.address(), topic, 20, logs);
        try {
            // Readers start once records flow, so the topic is known everywhere when they first ask.
            await().atMost(PROGRESS).until(() -> javaWriter.acked().size() >= 50);
        } catch (RuntimeException e) {
            javaWriter.close();
            kcatWriter.kill();
            throw e;
        }
        JavaGroupReader javaReader = new JavaGroupReader(readProxy.address(), topic, "group-" + fetchMaxWaitMs, 2,
                fetchMaxWaitMs);
        KcatReader kcatReader = new KcatReader(readProxy.address(), topic, fetchMaxWaitMs, logs);
        KafkajsConsumer kafkajs = KafkajsConsumer.start("kafkajs-" + fetchMaxWaitMs, readProxy.address(), topic,
                "kafkajs-" + fetchMaxWaitMs, Duration.ofMillis(fetchMaxWaitMs), logs);
        ReadLog kafkajsReads = new ReadLog("kafkajs consumer");
        try {
            List<ReadLog> live = List.of(javaReader.log(), kcatReader.log());
            awaitEveryReader(live, kafkajs, 200);
            long steadyFrom = System.currentTimeMillis();

            int killed = ownerOf(topic, 0);
            Set<Integer> orphaned = ownedBy(topic, killed);
            long killedAt = System.currentTimeMillis();
            cluster.broker(killed).kill();
            awaitResumed(live, kafkajs, killedAt, orphaned);

            int paused = otherOwner(topic, killed);
            Set<Integer> frozen = ownedBy(topic, paused);
            BrokerProcess pausedBroker = cluster.broker(paused);
            long pausedAt = System.currentTimeMillis();
            pausedBroker.pauseFor(TTL.plusSeconds(2));
            awaitResumed(live, kafkajs, pausedAt, frozen);
            awaitEveryReader(live, kafkajs, 200);
            long steadyUntil = System.currentTimeMillis();

            javaWriter.close();
            kcatWriter.finish();
            Set<String> acked = new HashSet<>(javaWriter.acked());
            boolean kcatClean = kcatWriter.exitCode() == 0 && kcatWriter.deliveryFailures().isEmpty();
            if (kcatClean) {
                acked.addAll(kcatWriter.sent());
            }
            await().atMost(PROGRESS).pollInterval(Duration.ofMillis(200)).until(() -> {
                ClusterReads.copyKafkajs(kafkajs, kafkajsReads);
                return javaReader.log().missing(acked).isEmpty() && kcatReader.log().missing(acked).isEmpty()
                        && kafkajsReads.missing(acked).isEmpty();
            });

            List<ReadLog> readers = List.of(javaReader.log(), kcatReader.log(), kafkajsReads);
            for (ReadLog reader : readers) {
                report.add(row(fetchMaxWaitMs, reader.reader(), reader.count(), reader.duplicates(),
                        reader.longestStallMillis(steadyFrom, steadyUntil), reader.resumedAfterMillis(killedAt, orphaned),
                        reader.resumedAfterMillis(pausedAt, frozen), "-"));
            }
            report.add(row(fetchMaxWaitMs, "Java producer (not idempotent)", javaWriter.acked().size(), -1, -1, -1, -1,
                    Integer.toString(javaWriter.failures().size())));
            report.add(row(fetchMaxWaitMs, "kcat producer", kcatWriter.sent().size(), -1, -1, -1, -1,
                    kcatWriter.deliveryFailures().size() + " (exit " + kcatWriter.exitCode() + ")"));

            assertThat(javaWriter.failures()).as("records the Java producer failed").isEmpty();
            assertThat(kcatWriter.deliveryFailures()).as("records kcat failed, see " + kcatWriter.log()).isEmpty();
            assertThat(kcatWriter.exitCode()).as("kcat producer exit code, see " + kcatWriter.log()).isZero();
            assertThat(javaReader.errors()).as("what poll() threw").isEmpty();
            assertThat(kcatReader.isAlive()).as("kcat consumer still running, see " + kcatReader.stderr()).isTrue();
            assertThat(kafkajs.errors()).as("errors kafkajs gave up on, see " + kafkajs.log()).isEmpty();
            for (ReadLog reader : readers) {
                assertThat(reader.missing(acked)).as(reader.reader() + " misses acknowledged records").isEmpty();
                assertThat(reader.longestStallMillis(steadyFrom, steadyUntil))
                        .as(reader.reader() + " never stops reading for longer than the TTL + 2 s")
                        .isLessThanOrEqualTo(RESUME_BOUND.plus(TIMING_ALLOWANCE).toMillis());
            }
        } finally {
            javaWriter.close();
            kcatWriter.kill();
            javaReader.close();
            kcatReader.close();
            kafkajs.close();
        }
    }

    private static String row(int maxWait, String client, long records, long duplicates, long stall, long killResume,
                              long pauseResume, String failed) {
        return "| " + maxWait + " | " + client + " | " + records + " | " + dash(duplicates) + " | " + dash(stall) + " | "
                + dash(killResume) + " | " + dash(pauseResume) + " | " + failed + " |";
    }

    private static String dash(long value) {
        return value < 0 ? "-" : Long.toString(value);
    }

    /** Waits until each reader read {@code more} further records. */
    private static void awaitEveryReader(List<ReadLog> live, KafkajsConsumer kafkajs, int more) {
        List<Integer> targets = live.stream().map(r -> r.count() + more).toList();
        int kafkajsTarget = kafkajs.received().size() + more;
        await().atMost(PROGRESS).pollInterval(Duration.ofMillis(50)).until(() ->
                IntStream.range(0, live.size()).allMatch(i -> live.get(i).count() >= targets.get(i))
                        && kafkajs.received().size() >= kafkajsTarget);
    }

    /** Waits until every reader read, from each of {@code partitions}, a record sent after the fault. */
    private static void awaitResumed(List<ReadLog> live, KafkajsConsumer kafkajs, long faultAt, Set<Integer> partitions) {
        ReadLog kafkajsReads = new ReadLog("kafkajs");
        await().atMost(PROGRESS).pollInterval(Duration.ofMillis(100)).until(() -> {
            ClusterReads.copyKafkajs(kafkajs, kafkajsReads);
            return live.stream().allMatch(r -> r.resumedAfterMillis(faultAt, partitions) >= 0)
                    && kafkajsReads.resumedAfterMillis(faultAt, partitions) >= 0;
        });
    }

    private int ownerOf(String topic, int partition) {
        return await().atMost(PROGRESS).until(() -> cluster.partitionOwner(topic, partition),
                java.util.OptionalInt::isPresent).getAsInt();
    }

    /** A live broker other than {@code except} that owns a partition of the topic. */
    private int otherOwner(String topic, int except) {
        return await().atMost(PROGRESS).until(() -> IntStream.range(0, PARTITIONS)
                .map(p -> cluster.partitionOwner(topic, p).orElse(except)).filter(id -> id != except)
                .filter(id -> cluster.broker(id).isAlive()).findFirst(), java.util.OptionalInt::isPresent).getAsInt();
    }

    private Set<Integer> ownedBy(String topic, int broker) {
        return IntStream.range(0, PARTITIONS).filter(p -> cluster.partitionOwner(topic, p).orElse(-1) == broker)
                .boxed().collect(Collectors.toCollection(TreeSet::new));
    }
}
