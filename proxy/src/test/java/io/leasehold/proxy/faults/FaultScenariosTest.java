package io.leasehold.proxy.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcd.jetcd.Client;
import io.leasehold.audit.AuditVerdict;
import io.leasehold.routing.keys.KeySchema;
import io.leasehold.testing.BrokerProcess;
import io.leasehold.testing.JavaCommand;
import io.leasehold.testing.LocalCluster;
import io.leasehold.testing.ProxyProcess;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Issue 7's fault scenarios, one cluster for all of them: a real etcd, three reference broker
 * processes with 2 s leases and two proxy processes (paranoid leak detection). Before each
 * scenario the cluster is brought back to three brokers and two proxies; each scenario writes
 * its own topic with idempotent producers that have both proxies as bootstrap, injects its
 * fault, and ends with the offset auditor reading every record back through every running
 * broker and proxy. The results table is printed and written to {@code target/fault-report.md}.
 *
 * <p>Duplicates must be zero: the producers are idempotent and the reference broker keeps their
 * sequence state in every fenced commit, so a retry after an unknown outcome (a killed broker or
 * proxy) is recognised by whichever broker owns the partition next.
 *
 * <p>{@code -Dleasehold.faults.ownership=none} runs the same scenarios against legacy brokers
 * without ownership, to see the assertions fail (they must).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FaultScenariosTest {

    private static final Duration TTL = Duration.ofSeconds(2);
    private static final Duration SETTLE_BOUND = TTL.plusSeconds(1);
    private static final Pattern PARTITION_COUNT = Pattern.compile("\"partitionCount\"\\s*:\\s*(\\d+)");

    private final FaultReport report = new FaultReport();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private LocalCluster cluster;
    private Client etcd;

    @BeforeAll
    void startCluster() {
        List<String> jvm = new ArrayList<>(JavaCommand.DEFAULT_JVM_OPTIONS);
        jvm.add("-Dio.netty.leakDetection.level=paranoid");
        cluster = LocalCluster.builder("faults").brokers(3).leaseTtl(TTL)
                .ownership(System.getProperty("leasehold.faults.ownership", "lease"))
                .proxyCommand(new JavaCommand(System.getProperty("java.class.path"), jvm)).start();
        cluster.startProxy();
        cluster.startProxy();
        etcd = Client.builder().endpoints(cluster.etcdEndpoint()).build();
    }

    @AfterAll
    void stopCluster() throws IOException {
        try {
            report.publish(Path.of("target", "fault-report.md"));
            if (cluster != null) {
                for (ProxyProcess proxy : cluster.proxies()) {
                    if (proxy.isAlive()) {
                        assertThat(proxy.terminate(Duration.ofSeconds(30))).as("exit code of " + proxy).isZero();
                    }
                    assertThat(Files.readString(proxy.process().stderrLog())).as("leaks in " + proxy).doesNotContain("LEAK:");
                }
            }
        } finally {
            if (etcd != null) {
                etcd.close();
            }
            if (cluster != null) {
                cluster.close();
            }
        }
    }

    /** Three brokers and two proxies, whatever the previous scenario left. */
    @BeforeEach
    void restoreCluster() {
        for (BrokerProcess broker : cluster.brokers()) {
            if (!broker.isAlive()) {
                cluster.startBroker(broker.id());
            }
        }
        long proxies = cluster.proxies().stream().filter(ProxyProcess::isAlive).count();
        for (long i = proxies; i < 2; i++) {
            cluster.startProxy();
        }
    }

    @Test
    @Order(1)
    void killedBrokersPartitionsAreWritableElsewhereWithinTheLeaseTtlAndNothingAckedIsLost() throws Exception {
        String scenario = "1 broker SIGKILL";
        try (AuditedRun run = AuditedRun.start(cluster, "kill-broker")) {
            run.awaitMoreAcks(300);
            int victim = ownerOf(run.topic(), 0);
            Set<Integer> orphaned = ownedBy(run.topic(), victim);
            long killedAt = System.nanoTime();
            cluster.broker(victim).kill();
            Duration takeover = awaitNewOwners(run.topic(), orphaned, victim, killedAt);
            run.awaitMoreAcks(300);
            ScenarioResult result = run.finish(scenario, "partitions " + orphaned + " of broker " + victim
                    + " owned elsewhere " + takeover.toMillis() + " ms after the kill (bound " + SETTLE_BOUND.toMillis() + " ms)");
            report.add(result);
            assertClean(result);
            assertThat(takeover).as("time until the killed broker's partitions had a new owner").isLessThanOrEqualTo(SETTLE_BOUND);
        }
    }

    @Test
    @Order(2)
    void brokerPausedPastItsLeaseIsFencedAfterResumingAndNothingOverlaps() throws Exception {
        String scenario = "2 broker SIGSTOP past TTL, SIGCONT";
        try (AuditedRun run = AuditedRun.start(cluster, "pause-broker")) {
            run.awaitMoreAcks(300);
            int zombie = ownerOf(run.topic(), 0);
            Set<Integer> taken = ownedBy(run.topic(), zombie);
            BrokerProcess paused = cluster.broker(zombie);
            long pausedAt = System.nanoTime();
            paused.pause();
            Duration takeover;
            try {
                takeover = awaitNewOwners(run.topic(), taken, zombie, pausedAt);
                run.awaitMoreAcks(300);
            } finally {
                paused.resume();
            }
            run.awaitMoreAcks(300);
            assertThat(paused.isAlive()).as("the resumed broker keeps running").isTrue();
            ScenarioResult result = run.finish(scenario, "broker " + zombie + " paused; partitions " + taken
                    + " taken over after " + takeover.toMillis() + " ms; resumed after more acks");
            report.add(result);
            assertClean(result);
        }
    }

    @Test
    @Order(3)
    void gracefullyStoppedBrokersPartitionsMoveWithinOneSecond() throws Exception {
        String scenario = "3 broker SIGTERM";
        try (AuditedRun run = AuditedRun.start(cluster, "stop-broker")) {
            run.awaitMoreAcks(300);
            int leaving = ownerOf(run.topic(), 0);
            Set<Integer> handed = ownedBy(run.topic(), leaving);
            long stoppedAt = System.nanoTime();
            CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(
                    () -> cluster.broker(leaving).terminate(Duration.ofSeconds(30)));
            Duration moved = awaitNewOwners(run.topic(), handed, leaving, stoppedAt);
            assertThat(exit.get(40, TimeUnit.SECONDS)).as("exit code after SIGTERM").isZero();
            run.awaitMoreAcks(300);
            ScenarioResult result = run.finish(scenario, "partitions " + handed + " of broker " + leaving
                    + " owned elsewhere " + moved.toMillis() + " ms after SIGTERM (bound 1000 ms)");
            report.add(result);
            assertClean(result);
            assertThat(moved).as("time until the stopped broker's partitions had a new owner")
                    .isLessThanOrEqualTo(Duration.ofSeconds(1));
        }
    }

    private void assertClean(ScenarioResult result) {
        AuditVerdict verdict = result.verdict();
        assertThat(result.workload().acked()).as("producers made progress").isGreaterThan(500);
        assertThat(verdict.overlaps()).as("overlapping offsets%n%s", verdict.report()).isZero();
        assertThat(verdict.ackedMissing()).as("acknowledged records missing%n%s", verdict.report()).isZero();
        assertThat(verdict.duplicates()).as("duplicates from idempotent producers%n%s", verdict.report()).isZero();
        assertThat(verdict.clean()).as(verdict.report()).isTrue();
    }

    private int ownerOf(String topic, int partition) {
        return await().atMost(Duration.ofSeconds(30)).until(() -> cluster.partitionOwner(topic, partition),
                OptionalInt::isPresent).getAsInt();
    }

    private Set<Integer> ownedBy(String topic, int broker) {
        return IntStream.range(0, AuditedRun.PARTITIONS).filter(p -> cluster.partitionOwner(topic, p).orElse(-1) == broker)
                .boxed().collect(Collectors.toCollection(TreeSet::new));
    }

    /** Waits until each of {@code partitions} has an owner other than {@code previous}; returns the time since {@code sinceNanos}. */
    private Duration awaitNewOwners(String topic, Set<Integer> partitions, int previous, long sinceNanos) {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(25)).until(() -> partitions.stream()
                .allMatch(p -> {
                    OptionalInt owner = cluster.partitionOwner(topic, p);
                    return owner.isPresent() && owner.getAsInt() != previous;
                }));
        return Duration.ofNanos(System.nanoTime() - sinceNanos);
    }
}
