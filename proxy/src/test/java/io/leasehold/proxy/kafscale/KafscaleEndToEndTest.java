package io.leasehold.proxy.kafscale;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.leasehold.audit.AuditVerdict;
import io.leasehold.audit.AuditedWorkload;
import io.leasehold.audit.JournalEntry;
import io.leasehold.audit.ProduceJournal;
import io.leasehold.audit.RecordIdentity;
import io.leasehold.audit.WorkloadResult;
import io.leasehold.audit.WorkloadSpec;
import io.leasehold.proxy.testing.PrometheusScrape;
import io.leasehold.testing.ClusterAudit;
import io.leasehold.testing.JavaCommand;
import io.leasehold.testing.KafkajsProducer;
import io.leasehold.testing.LocalCluster;
import io.leasehold.testing.ProxyProcess;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;

/**
 * Issue 11's end-to-end suite in KafScale mode: three reference brokers in {@code --layout
 * kafscale} (no broker registrations, addresses only in the metadata snapshot, KafScale's API
 * table without InitProducerId), two proxies, and real clients through them — kafka-clients
 * producers with idempotence off, a kafkajs producer and a kafka-clients consumer group (kcat and
 * kafkajs consumer groups, which need the proxy's version bridge, are in {@link VersionBridgeEndToEndTest}).
 * One broker is SIGKILLed and another SIGTERMed mid-run, then both come back as restarted pods
 * would. The offset auditor must find no overlapping offset and no acknowledged record missing,
 * and the proxies' NOT_LEADER_OR_FOLLOWER counters must stay still in steady state before and
 * after the faults: traffic reached the lease owner on the first try.
 */
class KafscaleEndToEndTest {
    private static final String TOPIC = "kafscale-e2e";
    private static final int PARTITIONS = 6;
    private static final String NOT_LEADER = "leasehold_backend_rejections_total";
    private static final String NOT_LEADER_LABEL = "error=\"not_leader_or_follower\"";

    @Test
    void clientsThroughTwoProxiesSurviveAKilledAndAStoppedKafscaleBrokerWithACleanAudit() throws Exception {
        try (LocalCluster cluster = LocalCluster.builder("kafscale-e2e").brokers(3).leaseTtl(Duration.ofSeconds(3))
                .extraBrokerArguments(List.of("--layout", "kafscale"))
                .proxyCommand(JavaCommand.ofCurrentClasspath()).start()) {
            ProxyProcess proxy1 = cluster.startProxy();
            ProxyProcess proxy2 = cluster.startProxy();
            List<PrometheusScrape> scrapes = List.of(new PrometheusScrape(proxy1.adminUrl()),
                    new PrometheusScrape(proxy2.adminUrl()));
            cluster.createTopic(TOPIC, PARTITIONS);
            ProduceJournal journal = new ProduceJournal();
            WorkloadSpec spec = WorkloadSpec.builder(TOPIC, List.of(proxy1.address() + "," + proxy2.address(),
                            proxy2.address() + "," + proxy1.address()))
                    .producerIdPrefix("java-")
                    .producers(2)
                    .idempotence(false)
                    .partitions(IntStream.range(0, PARTITIONS).boxed().toList())
                    .recordsPerProducer(100_000)
                    .recordsPerSecond(100)
                    .maxDuration(Duration.ofSeconds(80))
                    .deliveryTimeout(Duration.ofSeconds(30))
                    .producerOverride(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000)
                    .producerOverride(ProducerConfig.METADATA_MAX_AGE_CONFIG, 1_000)
                    .build();
            Set<RecordIdentity> consumed = ConcurrentHashMap.newKeySet();
            AtomicBoolean reading = new AtomicBoolean(true);
            CompletableFuture<Void> group = CompletableFuture.runAsync(() -> consume(proxy2.address(), consumed, reading));
            try (AuditedWorkload java = new AuditedWorkload(spec, journal)) {
                java.start();
                awaitAcks(java, 300);
                CompletableFuture<KafkajsProducer.Result> kafkajs = CompletableFuture.supplyAsync(() ->
                        new KafkajsProducer(proxy1.address(), "js-0", TOPIC, 1, 400, 64, Duration.ofMillis(25),
                                Duration.ofSeconds(60)).run(journal, cluster.logDir()));

                double[] steadyBefore = notLeaderRate(scrapes, java, 800);

                cluster.broker(3).kill();
                awaitAcks(java, 200);
                assertThat(cluster.broker(2).terminate(Duration.ofSeconds(20))).as("graceful stop").isZero();
                awaitAcks(java, 300);
                cluster.startBroker(2);
                cluster.startBroker(3);
                awaitAcks(java, 300);

                double[] steadyAfter = notLeaderRate(scrapes, java, 800);
                KafkajsProducer.Result js = kafkajs.get(90, TimeUnit.SECONDS);
                java.stop();
                WorkloadResult javaResult = java.awaitCompletion(Duration.ofSeconds(60));
                AuditVerdict verdict = new ClusterAudit(cluster, Duration.ofSeconds(30)).audit(journal, true);
                Set<RecordIdentity> acked = journal.entries().stream().filter(JournalEntry::acked)
                        .map(JournalEntry::identity).collect(Collectors.toSet());
                await().atMost(Duration.ofSeconds(30)).until(() -> group.isDone() || consumed.containsAll(acked));
                reading.set(false);
                group.get(30, TimeUnit.SECONDS);

                System.out.printf("kafscale e2e: java %s; kafkajs %s; group read %d distinct records of %d acknowledged%n"
                                + "NOT_LEADER_OR_FOLLOWER retries/s: before faults %.3f (%.0f in %.1f s), after %.3f (%.0f in %.1f s)%n%s%n",
                        javaResult, js, consumed.size(), acked.size(), steadyBefore[0],
                        steadyBefore[1], steadyBefore[2], steadyAfter[0], steadyAfter[1], steadyAfter[2], verdict.report());
                assertThat(consumed).as("the consumer group read every acknowledged record").containsAll(acked);
                assertThat(verdict.overlaps()).as(verdict.report()).isZero();
                assertThat(verdict.ackedMissing()).as(verdict.report()).isZero();
                assertThat(javaResult.acked()).isPositive();
                assertThat(js.acked()).as("kafkajs through the proxy: %s", js).isPositive();
                assertThat(steadyBefore[1]).as("NOT_LEADER retries in steady state before the faults").isZero();
                assertThat(steadyAfter[1]).as("NOT_LEADER retries in steady state after the faults").isZero();
            } finally {
                reading.set(false);
            }
        }
    }

    /** Waits for {@code more} further acknowledgements of the Java producers: progress, not time, moves the test on. */
    private static void awaitAcks(AuditedWorkload workload, long more) {
        long target = workload.ackedSoFar() + more;
        await().atMost(Duration.ofSeconds(45)).pollInterval(Duration.ofMillis(50)).until(() -> workload.ackedSoFar() >= target);
    }

    /** {rate per second, count, seconds} of NOT_LEADER rejections over both proxies while {@code acks} more records are acknowledged. */
    private static double[] notLeaderRate(List<PrometheusScrape> scrapes, AuditedWorkload workload, long acks) throws Exception {
        double first = notLeader(scrapes);
        long started = System.nanoTime();
        awaitAcks(workload, acks);
        double count = notLeader(scrapes) - first;
        double seconds = (System.nanoTime() - started) / 1e9;
        return new double[] {count / seconds, count, seconds};
    }

    private static double notLeader(List<PrometheusScrape> scrapes) throws Exception {
        double sum = 0;
        for (PrometheusScrape scrape : scrapes) {
            sum += Math.max(0, scrape.value(NOT_LEADER, NOT_LEADER_LABEL));
        }
        return sum;
    }

    /** A consumer group member reading every partition through one proxy, committing as it goes. */
    private static void consume(String bootstrap, Set<RecordIdentity> consumed, AtomicBoolean reading) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "kafscale-e2e-readers");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "true");
        props.put(ConsumerConfig.AUTO_COMMIT_INTERVAL_MS_CONFIG, "500");
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(TOPIC));
            while (reading.get()) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    RecordIdentity.parseValue(record.value()).ifPresent(consumed::add);
                }
            }
        }
    }
}
