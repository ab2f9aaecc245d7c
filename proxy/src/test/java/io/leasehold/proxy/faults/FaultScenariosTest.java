package io.leasehold.proxy.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
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
import org.junit.jupiter.api.Tag;
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
// Serial: asserts failover within the lease TTL plus a timing allowance.
@Tag("serial")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FaultScenariosTest {

    private static final Duration TTL = Duration.ofSeconds(2);
    /** Issue 7's bounds: a dead broker's partitions move within the TTL + 1 s, a stopping broker's within 1 s. */
    private static final Duration CRASH_BOUND = TTL.plusSeconds(1);
    private static final Duration GRACEFUL_BOUND = Duration.ofSeconds(1);
    /**
     * Added to those bounds in the assertions (the table reports the strict bound): two cores
     * shared by several builds starve JVMs of CPU for hundreds of milliseconds at a time.
     * {@code -Dleasehold.faults.timingAllowanceMs=0} asserts the strict bounds.
     */
    private static final Duration TIMING_ALLOWANCE = Duration.ofMillis(Long.getLong("leasehold.faults.timingAllowanceMs", 1000));
    private static final Duration OUTAGE = TTL.plusSeconds(1);
    private static final Duration CHURN = Duration.ofSeconds(8);
    private static final Duration CHURN_INTERVAL = Duration.ofMillis(300);

    private final String ownership = System.getProperty("leasehold.faults.ownership", "lease");
    private final FaultReport report = new FaultReport();
    private final ObjectMapper json = new ObjectMapper();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private LocalCluster cluster;
    private Client etcd;

    @BeforeAll
    void startCluster() {
        List<String> jvm = new ArrayList<>(JavaCommand.DEFAULT_JVM_OPTIONS);
        jvm.add("-Dio.netty.leakDetection.level=paranoid");
        cluster = LocalCluster.builder("faults").brokers(3).leaseTtl(TTL)
                .ownership(ownership)
                .proxyCommand(JavaCommand.ofCurrentClasspath(jvm)).start();
        cluster.startProxy();
        cluster.startProxy();
        etcd = Client.builder().endpoints(cluster.etcdEndpoint()).build();
    }

    @AfterAll
    void stopCluster() throws IOException {
        try {
            report.publish(Path.of("target", "fault-report.md"));
            if (cluster != null) {
                ProxyExits.assertCleanExits(cluster);
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

    /** etcd, three brokers and two proxies, whatever the previous scenario left. */
    @BeforeEach
    void restoreCluster() {
        if (!cluster.etcd().isRunning()) {
            cluster.etcd().restart();
        }
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
            int victim = victim(run.topic());
            Set<Integer> orphaned = ownedBy(run.topic(), victim);
            long killedAt = System.nanoTime();
            cluster.broker(victim).kill();
            Duration takeover = awaitTakeover(run.topic(), orphaned, victim, killedAt);
            run.awaitMoreAcks(300);
            ScenarioResult result = run.finish(scenario, "partitions " + orphaned + " of broker " + victim
                    + " owned elsewhere " + within(takeover, CRASH_BOUND) + " after the kill");
            report.add(result);
            assertClean(result);
            assertThat(takeover).as("time until the killed broker's partitions had a new owner")
                    .isLessThanOrEqualTo(CRASH_BOUND.plus(TIMING_ALLOWANCE));
        }
    }

    @Test
    @Order(2)
    void brokerPausedPastItsLeaseIsFencedAfterResumingAndNothingOverlaps() throws Exception {
        String scenario = "2 broker SIGSTOP past TTL, SIGCONT";
        try (AuditedRun run = AuditedRun.start(cluster, "pause-broker")) {
            run.awaitMoreAcks(300);
            int zombie = victim(run.topic());
            Set<Integer> taken = ownedBy(run.topic(), zombie);
            BrokerProcess paused = cluster.broker(zombie);
            long pausedAt = System.nanoTime();
            paused.pause();
            Duration takeover;
            try {
                takeover = awaitTakeover(run.topic(), taken, zombie, pausedAt);
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
            int leaving = victim(run.topic());
            Set<Integer> handed = ownedBy(run.topic(), leaving);
            long stoppedAt = System.nanoTime();
            CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(
                    () -> cluster.broker(leaving).terminate(Duration.ofSeconds(30)));
            Duration moved = awaitTakeover(run.topic(), handed, leaving, stoppedAt);
            assertThat(exit.get(40, TimeUnit.SECONDS)).as("exit code after SIGTERM").isZero();
            run.awaitMoreAcks(300);
            ScenarioResult result = run.finish(scenario, "partitions " + handed + " of broker " + leaving
                    + " owned elsewhere " + within(moved, GRACEFUL_BOUND) + " after SIGTERM");
            report.add(result);
            assertClean(result);
            assertThat(moved).as("time until the stopped broker's partitions had a new owner")
                    .isLessThanOrEqualTo(GRACEFUL_BOUND.plus(TIMING_ALLOWANCE));
        }
    }

    @Test
    @Order(4)
    void proxiesKeepRoutingThroughAnEtcdRestartAndEverythingConverges() throws Exception {
        String scenario = "4 etcd restart";
        String fresh = "etcd-fresh";
        cluster.createTopic(fresh, 1);
        try (AuditedRun run = AuditedRun.start(cluster, "etcd-restart")) {
            run.awaitMoreAcks(300);
            List<ProxyProcess> proxies = liveProxies();
            Map<ProxyProcess, JsonNode> routesBefore = new LinkedHashMap<>();
            for (ProxyProcess proxy : proxies) {
                await().atMost(Duration.ofSeconds(20)).until(() -> owners(routes(proxy), run.topic()).size() == AuditedRun.PARTITIONS);
                routesBefore.put(proxy, routes(proxy));
            }
            long ackedDuringOutage;
            Duration freshAckedAfterRestart;
            try (KafkaProducer<byte[], byte[]> probe = probeProducer()) {
                assertThat(probe.partitionsFor(fresh)).hasSize(1);
                cluster.etcd().stop();
                long ackedAtStop = run.ackedSoFar();
                try {
                    Future<RecordMetadata> firstWrite = probe.send(new ProducerRecord<>(fresh, 0, null, bytes("first write")));
                    // The outage itself: past the lease TTL, so the brokers' sessions lapse meanwhile.
                    Thread.sleep(OUTAGE.toMillis());
                    for (ProxyProcess proxy : proxies) {
                        assertKeepsItsSnapshot(proxy, routesBefore.get(proxy), routes(proxy), run.topic());
                    }
                    assertThat(acked(firstWrite)).as("a never-written partition was claimed and written while etcd was down")
                            .isFalse();
                    ackedDuringOutage = run.ackedSoFar() - ackedAtStop;
                } finally {
                    cluster.etcd().restart();
                }
                long restartedAt = System.nanoTime();
                probe.send(new ProducerRecord<>(fresh, 0, null, bytes("after restart"))).get(30, TimeUnit.SECONDS);
                freshAckedAfterRestart = Duration.ofNanos(System.nanoTime() - restartedAt);
            }
            run.awaitMoreAcks(600);
            for (ProxyProcess proxy : proxies) {
                await().atMost(Duration.ofSeconds(30)).until(() -> status(proxy.adminUrl() + "/readyz") == 200);
            }
            ScenarioResult result = run.finish(scenario, "etcd down " + OUTAGE.toSeconds() + " s: both proxies kept their snapshot (only routes "
                    + "owners rejected dropped); " + ackedDuringOutage + " acks arrived while it was down; "
                    + "a never-written partition was claimed " + freshAckedAfterRestart.toMillis() + " ms after the restart");
            report.add(result);
            assertClean(result);
        }
    }

    @Test
    @Order(5)
    void clientsOfAKilledProxyReconnectThroughTheOtherAndNothingAckedIsLost() throws Exception {
        String scenario = "5 proxy SIGKILL";
        try (AuditedRun run = AuditedRun.start(cluster, "kill-proxy")) {
            run.awaitMoreAcks(300);
            ProxyProcess victim = liveProxies().get(0);
            Map<String, Long> before = run.ackedByProducer();
            long killedAt = System.nanoTime();
            victim.kill();
            await().atMost(Duration.ofSeconds(45)).pollInterval(Duration.ofMillis(100)).until(() -> {
                Map<String, Long> now = run.ackedByProducer();
                return before.keySet().stream().allMatch(producer -> now.getOrDefault(producer, 0L) > before.get(producer) + 50);
            });
            Duration resumed = Duration.ofNanos(System.nanoTime() - killedAt);
            run.awaitMoreAcks(300);
            ScenarioResult result = run.finish(scenario, "every producer acked 50 more records " + resumed.toMillis()
                    + " ms after proxy " + victim.index() + " was killed");
            report.add(result);
            assertClean(result);
            assertThat(before).as("producers acked before the kill").hasSize(AuditedRun.PRODUCERS);
        }
    }

    @Test
    @Order(6)
    void ownershipChurnEveryFewHundredMillisecondsLosesAndOverlapsNothing() throws Exception {
        String scenario = "6 ownership churn";
        OwnershipMover mover = new OwnershipMover(etcd, new KeySchema(cluster.prefix()));
        try (AuditedRun run = AuditedRun.start(cluster, "churn")) {
            run.awaitMoreAcks(300);
            int handovers = 0;
            int chosen = 0;
            int attempts = 0;
            long end = System.nanoTime() + CHURN.toNanos();
            while (System.nanoTime() < end) {
                OwnershipMover.Handover handover = mover.handOver(run.topic(), attempts % AuditedRun.PARTITIONS);
                handovers += handover.released() ? 1 : 0;
                chosen += handover.newOwner().isPresent() ? 1 : 0;
                attempts++;
                Thread.sleep(CHURN_INTERVAL.toMillis());
            }
            run.awaitMoreAcks(300);
            long epochs = writerEpochs(run.topic());
            ScenarioResult result = run.finish(scenario, handovers + " of " + attempts + " handovers (one every "
                    + CHURN_INTERVAL.toMillis() + " ms for " + CHURN.toSeconds() + " s), " + chosen
                    + " to the chosen broker, the rest reclaimed first by the broker traffic reached; " + epochs
                    + " ownership epochs wrote segments");
            report.add(result);
            assertClean(result);
            assertThat(handovers).as("handovers done").isGreaterThanOrEqualTo(attempts / 2);
            assertThat(chosen).as("handovers to the chosen broker").isPositive();
            assertThat(epochs).as("epochs that wrote the topic").isGreaterThan(AuditedRun.PARTITIONS + handovers / 2);
        }
    }

    private List<ProxyProcess> liveProxies() {
        return cluster.proxies().stream().filter(ProxyProcess::isAlive).toList();
    }

    /** The proxy's {@code /routes}: its in-memory routing snapshot. */
    private JsonNode routes(ProxyProcess proxy) throws Exception {
        return json.readTree(http.send(HttpRequest.newBuilder(URI.create(proxy.adminUrl() + "/routes"))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()).body());
    }

    /** Partition to owner id of {@code topic} in a {@code /routes} dump. */
    private static Map<Integer, Integer> owners(JsonNode routes, String topic) {
        Map<Integer, Integer> owners = new TreeMap<>();
        for (JsonNode partition : routes.path("partitions")) {
            if (partition.path("topic").asText().equals(topic)) {
                owners.put(partition.path("partition").asInt(), partition.path("brokerId").asInt());
            }
        }
        return owners;
    }

    /**
     * While etcd is down the proxy routes on the snapshot it had: still loaded, same brokers,
     * and every route it still has unchanged. Routes may only disappear, when their owner
     * rejected a request (brokers whose etcd session lapsed stop writing): that is the proxy's
     * conditional invalidation, not a reload.
     */
    private static void assertKeepsItsSnapshot(ProxyProcess proxy, JsonNode before, JsonNode during, String topic) {
        assertThat(during.path("loaded").asBoolean()).as("%s snapshot loaded while etcd is down", proxy).isTrue();
        assertThat(during.path("brokers").size()).as("%s brokers", proxy).isEqualTo(before.path("brokers").size());
        assertThat(owners(before, topic)).as("%s routes of %s while etcd is down", proxy, topic)
                .containsAllEntriesOf(owners(during, topic));
    }

    private int status(String url) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.discarding())
                    .statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** Distinct ownership epochs ({@code e<epoch>} writer tags of segment files) over the topic's partitions. */
    private long writerEpochs(String topic) throws IOException {
        Path topicDir;
        try (var dirs = Files.list(cluster.storageDir())) {
            topicDir = dirs.filter(dir -> dir.getFileName().toString().startsWith(topic + "-")).findFirst().orElseThrow();
        }
        try (var files = Files.walk(topicDir)) {
            return files.map(file -> file.getFileName().toString()).filter(name -> name.endsWith(".log"))
                    .map(name -> name.substring(name.indexOf('-') + 1)).distinct().count();
        }
    }

    private KafkaProducer<byte[], byte[]> probeProducer() {
        Properties properties = new Properties();
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.proxyBootstrapServers());
        properties.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 40_000);
        properties.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 3_000);
        properties.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        properties.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
        // Not idempotent: its first send falls in the outage, and the reference broker answers
        // InitProducerId without etcd with an error the client treats as fatal.
        properties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        properties.put(ProducerConfig.ACKS_CONFIG, "all");
        properties.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        properties.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        return new KafkaProducer<>(properties);
    }

    private static boolean acked(Future<RecordMetadata> send) {
        if (!send.isDone()) {
            return false;
        }
        try {
            send.get();
            return true;
        } catch (ExecutionException failed) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String within(Duration measured, Duration bound) {
        return measured.toMillis() + " ms (" + (measured.compareTo(bound) <= 0 ? "within" : "OVER") + " the "
                + bound.toMillis() + " ms bound)";
    }

    private void assertClean(ScenarioResult result) {
        AuditVerdict verdict = result.verdict();
        assertThat(result.workload().acked()).as("producers made progress").isGreaterThan(500);
        assertThat(verdict.overlaps()).as("overlapping offsets%n%s", verdict.report()).isZero();
        assertThat(verdict.ackedMissing()).as("acknowledged records missing%n%s", verdict.report()).isZero();
        assertThat(verdict.duplicates()).as("duplicates from idempotent producers%n%s", verdict.report()).isZero();
        assertThat(verdict.clean()).as(verdict.report()).isTrue();
    }

    /**
     * The broker a scenario hits: the owner of partition 0. Legacy brokers ({@code none}) own
     * nothing; there it is broker 1, which serves some partitions of every topic.
     */
    private int victim(String topic) {
        return legacyBrokers() ? 1 : ownerOf(topic, 0);
    }

    private boolean legacyBrokers() {
        return ownership.equals("none");
    }

    /**
     * Waits until another broker took the partitions over (legacy brokers: until the victim's
     * registration expired, which is when proxies stop routing to it); returns the time since
     * {@code sinceNanos}.
     */
    private Duration awaitTakeover(String topic, Set<Integer> partitions, int previous, long sinceNanos) {
        if (legacyBrokers()) {
            OwnershipMover registrations = new OwnershipMover(etcd, new KeySchema(cluster.prefix()));
            await().atMost(Duration.ofSeconds(30)).until(() -> !registrations.brokerLeases().containsKey(previous));
            return Duration.ofNanos(System.nanoTime() - sinceNanos);
        }
        return awaitNewOwners(topic, partitions, previous, sinceNanos);
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
        OwnershipMover owners = new OwnershipMover(etcd, new KeySchema(cluster.prefix()));
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20)).until(() -> {
            Map<Integer, Integer> now = owners.partitionOwners(topic);
            return partitions.stream().allMatch(p -> now.containsKey(p) && now.get(p) != previous);
        });
        return Duration.ofNanos(System.nanoTime() - sinceNanos);
    }
}
