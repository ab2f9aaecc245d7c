package io.leasehold.proxy.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.leasehold.proxy.testing.PrometheusScrape;
import io.leasehold.testing.JavaCommand;
import io.leasehold.testing.LocalCluster;
import io.leasehold.testing.ManagedProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One proxy under hostile load while real clients work through it: an attacker process
 * ({@link HostileClientsMain}) opens 5,000 idle or half-framed sockets from several loopback
 * addresses, trickles frames one byte at a time and floods pipelined tiny requests, while four
 * paced producers and a consumer group run. The producers keep at least {@link #KEPT_THROUGHPUT}
 * of their baseline throughput (the request quota mutes the flooding connections), the proxy's
 * peak resident memory stays within its heap + direct memory + overhead budget, the proxy's own
 * deadlines close every hostile socket afterwards (the attacker never closes the idle and
 * trickling ones), and a new client works.
 */
// Serial: asserts throughput kept against its own baseline, which a second busy test JVM would skew.
@Tag("serial")
class HostileLoadTest {
    /** The attacker's own JVM: small, so it takes no more of the machine than it needs. */
    private static final List<String> ATTACKER_JVM = List.of("-Xmx128m", "-XX:+UseSerialGC");
    private static final int PRODUCERS = 4;
    private static final int RECORDS_PER_SECOND = 250;
    private static final int RECORD_BYTES = 1024;
    /**
     * After the first acks, before the baseline: sends queued while the producers started are
     * acknowledged in a burst, which would make the baseline more than the producers offer.
     */
    private static final Duration WARM_UP = Duration.ofSeconds(10);
    private static final Duration BASELINE = Duration.ofSeconds(15);
    private static final Duration HOSTILE = Duration.ofSeconds(20);
    /**
     * The proxy's first-request and frame-completion deadlines: as long as the attack, so the
     * idle and trickling sockets are held through it and closed soon after (the 30 s defaults
     * kept the test waiting about 10 s more for them).
     */
    private static final Duration HOSTILE_SOCKET_DEADLINE = HOSTILE;
    private static final String HEAP = "256m";
    private static final String DIRECT = "128m";
    /** Heap and direct limits plus 256 MiB for metaspace, code cache, thread stacks and native memory. */
    private static final long RSS_BUDGET_BYTES = (256L + 128 + 256) << 20;
    /**
     * The request quota the proxy runs with: far above what these clients need (a paced producer
     * makes a few dozen requests a second), far below what a flooding connection sends. With the
     * default (10,000 a second) the eight flood connections could ask for more than the whole
     * proxy answers on this machine (measured: about 38,000 a second), and the producers kept
     * 10 % of their throughput.
     */
    private static final int REQUESTS_PER_SECOND_PER_CONNECTION = 1_000;
    /**
     * Asserted share of the baseline throughput the real producers keep under attack: the 80 % the
     * proxy is held to. Measured 1.00 and 1.01 in two clean runs of the whole suite on a quiet
     * 2-core machine, 0.80–0.92 while other builds kept its load average at 25–35. Without the
     * request quota it is 0.10.
     */
    private static final double KEPT_THROUGHPUT = 0.8;

    @TempDir
    Path dir;

    @Test
    void realClientsKeepTheirThroughputAndMemoryStaysInBudgetWhileHostileSocketsAttackAndAllAreClosedAfter()
            throws Exception {
        List<String> jvm = List.of("-Xmx" + HEAP, "-XX:MaxDirectMemorySize=" + DIRECT, "-XX:+UseSerialGC");
        Map<String, String> limits = Map.of(
                "LEASEHOLD_LIMITS_MAX_CONNECTIONS", "20000",
                "LEASEHOLD_LIMITS_MAX_CONNECTIONS_PER_IP", "2000",
                "LEASEHOLD_LIMITS_ACCEPTS_PER_SECOND", "20000",
                "LEASEHOLD_LIMITS_FIRST_REQUEST_TIMEOUT", HOSTILE_SOCKET_DEADLINE.toSeconds() + "s",
                "LEASEHOLD_LIMITS_FRAME_COMPLETION_TIMEOUT", HOSTILE_SOCKET_DEADLINE.toSeconds() + "s",
                "LEASEHOLD_LIMITS_REQUESTS_PER_SECOND_PER_CONNECTION", String.valueOf(REQUESTS_PER_SECOND_PER_CONNECTION));
        try (LocalCluster cluster = LocalCluster.builder("hostile").brokers(1).start();
             LaunchedProxy proxy = LaunchedProxy.start(cluster, dir, "hostile-proxy",
                     JavaCommand.ofCurrentClasspath(jvm), limits)) {
            assertThat(openFilesLimit(proxy.process().pid())).as("the proxy's open-files limit (ulimit -n)")
                    .isGreaterThan(HostileClientsMain.IDLE_SOCKETS + HostileClientsMain.TRICKLERS
                            + HostileClientsMain.FLOODERS + 1_000);
            cluster.createTopic("load", 4);
            PrometheusScrape metrics = new PrometheusScrape(proxy.adminUrl());
            List<PacedProducer> producers = new ArrayList<>();
            AtomicBoolean stopConsumer = new AtomicBoolean();
            AtomicLong consumed = new AtomicLong();
            Thread consumer = new Thread(() -> consume(proxy.address(), stopConsumer, consumed), "hostile-consumer");
            ManagedProcess attacker = null;
            try {
                for (int i = 0; i < PRODUCERS; i++) {
                    producers.add(new PacedProducer(proxy.address(), i).start());
                }
                consumer.start();
                await().atMost(Duration.ofSeconds(60)).until(() -> consumed.get() > 0
                        && producers.stream().allMatch(p -> p.acked() > 0));
                Thread.sleep(WARM_UP.toMillis());

                long baselineAcked = ackedDuring(producers, BASELINE);
                printProxyState("after baseline", metrics);
                double baselineConnections = metrics.value("leasehold_client_connections", "");
                long consumedBefore = consumed.get();

                long hostileAcked;
                double peakConnections;
                double peakBudget = 0;
                attacker = ManagedProcess.start("hostile-clients", JavaCommand.ofCurrentClasspath(ATTACKER_JVM)
                        .command(HostileClientsMain.class.getName(), List.of(proxy.address(),
                                String.valueOf(HOSTILE.toSeconds()))), cluster.logDir(), Map.of());
                attacker.awaitReady(Duration.ofSeconds(120));
                long ackedAtStart = totalAcked(producers);
                double proxyCpuAtStart = cpuSeconds(proxy.process().pid());
                double attackerCpuAtStart = cpuSeconds(attacker.pid());
                long startNanos = System.nanoTime();
                long hostileEnd = startNanos + HOSTILE.toNanos();
                peakConnections = metrics.value("leasehold_client_connections", "");
                while (System.nanoTime() < hostileEnd) {
                    Thread.sleep(500);
                    peakBudget = Math.max(peakBudget, metrics.value("leasehold_memory_budget_used_bytes", ""));
                    peakConnections = Math.max(peakConnections, metrics.value("leasehold_client_connections", ""));
                }
                hostileAcked = (long) ((totalAcked(producers) - ackedAtStart)
                        * (BASELINE.toNanos() / (double) (System.nanoTime() - startNanos)));
                System.out.printf("hostile load: CPU used during the attack: proxy %.1fs, attacker %.1fs in %ds%n",
                        cpuSeconds(proxy.process().pid()) - proxyCpuAtStart,
                        cpuSeconds(attacker.pid()) - attackerCpuAtStart, HOSTILE.toSeconds());
                AttackOutcome flood = AttackOutcome.awaitFrom(attacker, Duration.ofSeconds(30));
                printProxyState("after attack", metrics);
                long consumedUnderAttack = consumed.get() - consumedBefore;
                long peakRss = ProxyMemory.peakRssBytes(proxy.process().pid());
                double ratio = hostileAcked / (double) baselineAcked;
                System.out.printf("hostile load: baseline %d acks/%ds, under attack %d (ratio %.2f); %d consumed under "
                                + "attack; peak %.0f client connections (baseline %.0f); flood sent %d requests, %d "
                                + "answers read; peak memory budget used %.1f MiB of %.0f MiB; peak RSS %d MiB "
                                + "(budget %d MiB)%n", baselineAcked, BASELINE.toSeconds(), hostileAcked, ratio,
                        consumedUnderAttack, peakConnections, baselineConnections, flood.sent(), flood.answered(),
                        peakBudget / (1 << 20), metrics.value("leasehold_memory_budget_limit_bytes", "")
                                / (1 << 20), peakRss >> 20, RSS_BUDGET_BYTES >> 20);

                assertThat(peakConnections).as("hostile sockets the proxy held at once")
                        .isGreaterThanOrEqualTo(HostileClientsMain.IDLE_SOCKETS);
                assertThat(flood.answered()).as("flood requests answered").isGreaterThan(HostileClientsMain.FLOOD_BATCH);
                assertThat(metrics.value("leasehold_requests_throttled_total", "")).as("flood requests throttled")
                        .isPositive();
                assertThat(ratio).as("share of the baseline throughput kept under attack")
                        .isGreaterThanOrEqualTo(KEPT_THROUGHPUT);
                assertThat(consumedUnderAttack).as("records the consumer read under attack").isPositive();
                assertThat(peakRss).as("the proxy's peak resident memory").isLessThanOrEqualTo(RSS_BUDGET_BYTES);
                assertThat(producers.stream().mapToLong(PacedProducer::failed).sum()).as("failed sends").isZero();

                // Recovery: the attacker never closes its idle and trickling sockets; the proxy's deadlines must.
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1)).until(() ->
                        metrics.value("leasehold_client_connections", "") <= baselineConnections);
                double timedOut = Math.max(0, metrics.value("leasehold_client_connections_timed_out_total",
                        "reason=\"first_request\"")) + Math.max(0, metrics.value(
                        "leasehold_client_connections_timed_out_total", "reason=\"frame_completion\""));
                assertThat(timedOut).as("idle, half-framed and trickling sockets closed by the proxy's deadlines")
                        .isGreaterThanOrEqualTo(HostileClientsMain.IDLE_SOCKETS + HostileClientsMain.TRICKLERS);
                assertThat(proxy.process().isAlive()).isTrue();
                try (SteadyTraffic fresh = new SteadyTraffic(proxy.address(), "load").start()) {
                    await().atMost(Duration.ofSeconds(30)).until(() -> fresh.completed() >= 3);
                    fresh.stopAndWait();
                    assertThat(fresh.failures()).as("a new client after the attack").isEmpty();
                }
                assertThat(Files.readString(proxy.process().stderrLog())).doesNotContain("OutOfMemoryError")
                        .doesNotContain("LEAK:");
            } finally {
                if (attacker != null) {
                    attacker.close();
                }
                producers.forEach(PacedProducer::close);
                stopConsumer.set(true);
                consumer.join(10_000);
            }
        }
    }

    /** Where the proxy's time went: produce latency, GC pauses and CPU so far. */
    private static void printProxyState(String when, PrometheusScrape metrics) throws Exception {
        System.out.printf("hostile load, %s: Produce count %.0f sum %.1fs; requests throttled %.0f, connection mutes "
                        + "%.0f; GC pauses %.0f summing %.1fs; process CPU %.2f%n",
                when, metrics.value("leasehold_requests_seconds_count", "api=\"Produce\""),
                metrics.value("leasehold_requests_seconds_sum", "api=\"Produce\""),
                metrics.value("leasehold_requests_throttled_total", ""),
                metrics.value("leasehold_client_connection_mutes_total", ""),
                metrics.value("jvm_gc_pause_seconds_count", ""), metrics.value("jvm_gc_pause_seconds_sum", ""),
                metrics.value("process_cpu_usage", ""));
    }

    /** User and system CPU time a process used so far (from /proc; the kernel counts in 1/100 s). */
    private static double cpuSeconds(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / 100.0;
    }

    private static long openFilesLimit(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid), "limits"))) {
            if (line.startsWith("Max open files")) {
                return Long.parseLong(line.split("\\s+")[3]);
            }
        }
        throw new IllegalStateException("no open-files limit in /proc/" + pid + "/limits");
    }

    private static long totalAcked(List<PacedProducer> producers) {
        return producers.stream().mapToLong(PacedProducer::acked).sum();
    }

    private static long ackedDuring(List<PacedProducer> producers, Duration phase) throws InterruptedException {
        long before = totalAcked(producers);
        Thread.sleep(phase.toMillis());
        return totalAcked(producers) - before;
    }

    private static void consume(String bootstrap, AtomicBoolean stop, AtomicLong consumed) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ConsumerConfig.GROUP_ID_CONFIG, "hostile-readers");
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
            consumer.subscribe(List.of("load"));
            while (!stop.get()) {
                consumed.addAndGet(consumer.poll(Duration.ofMillis(200)).count());
            }
        }
    }

    /** What the attacker process reported once its attack time was over. */
    private record AttackOutcome(long sent, long answered) {
        static AttackOutcome awaitFrom(ManagedProcess attacker, Duration timeout) {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < deadline) {
                try {
                    for (String line : Files.readAllLines(attacker.stdoutLog())) {
                        if (line.startsWith(HostileClientsMain.ENDED)) {
                            return new AttackOutcome(field(line, "sent"), field(line, "answered"));
                        }
                    }
                    Thread.sleep(200);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            throw new IllegalStateException("the attacker did not report its end within " + timeout + ": "
                    + attacker.stderrTail(20));
        }

        private static long field(String line, String name) {
            for (String part : line.split(" ")) {
                if (part.startsWith(name + "=")) {
                    return Long.parseLong(part.substring(name.length() + 1));
                }
            }
            throw new IllegalStateException("no " + name + " in the attacker's line: " + line);
        }
    }

    /** A producer sending {@link #RECORDS_PER_SECOND} records a second until closed, counting acks. */
    private static final class PacedProducer implements AutoCloseable {
        private final KafkaProducer<byte[], byte[]> producer;
        private final AtomicLong acked = new AtomicLong();
        private final AtomicLong failed = new AtomicLong();
        private final AtomicBoolean stop = new AtomicBoolean();
        private final Thread thread;

        PacedProducer(String bootstrap, int index) {
            Map<String, Object> config = new HashMap<>();
            config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            config.put(ProducerConfig.ACKS_CONFIG, "1");
            config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
            config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
            config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
            config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
            producer = new KafkaProducer<>(config);
            thread = new Thread(this::run, "paced-producer-" + index);
        }

        PacedProducer start() {
            thread.start();
            return this;
        }

        private void run() {
            byte[] value = new byte[RECORD_BYTES];
            long intervalNanos = 1_000_000_000L / RECORDS_PER_SECOND;
            long next = System.nanoTime();
            while (!stop.get()) {
                producer.send(new ProducerRecord<>("load", value), (metadata, error) -> {
                    if (error == null) {
                        acked.incrementAndGet();
                    } else {
                        failed.incrementAndGet();
                    }
                });
                next += intervalNanos;
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    try {
                        Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        }

        long acked() {
            return acked.get();
        }

        long failed() {
            return failed.get();
        }

        @Override
        public void close() {
            stop.set(true);
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            producer.close(Duration.ofSeconds(10));
        }
    }
}
