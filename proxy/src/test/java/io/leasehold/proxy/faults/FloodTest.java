package io.leasehold.proxy.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.leasehold.testing.BrokerProcess;
import io.leasehold.testing.JavaCommand;
import io.leasehold.testing.LocalCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Many producers send large records through one proxy whose JVM has a small heap and a small
 * direct-memory limit, while the only broker is frozen (SIGSTOP, shorter than its lease, so it is
 * slow rather than gone). The clients offer more than twice the proxy's memory limits; requests
 * the broker cannot take pile up in the proxy only as far as its per-connection in-flight limit
 * lets them (it stops reading clients whose requests cannot move on): its direct memory stays
 * within what that limit allows, its resident memory within budget, it does not run out of
 * memory, and once the broker continues every record is acknowledged and a fresh
 * client's produce and fetch work.
 */
// Serial: floods the proxy with every core it can get; beside another class it would starve that one and be starved.
@Tag("serial")
class FloodTest {

    private static final int PRODUCERS = 12;
    private static final int RECORDS_PER_PRODUCER = 100;
    private static final int RECORD_BYTES = 256 * 1024;
    private static final String PROXY_MEMORY_LIMIT = "128m";
    private static final long PROXY_MEMORY_LIMIT_BYTES = 128L << 20;
    /**
     * Requests each client may have in flight: 20, four times the kafka-clients default, so the
     * clients would put 240 MB in flight. The proxy's own limit is lower,
     * {@link #PROXY_IN_FLIGHT}: it is what keeps memory bounded here.
     */
    private static final int IN_FLIGHT = 20;
    /** {@code limits.maxInFlightPerConnection} of the proxy under test. */
    private static final int PROXY_IN_FLIGHT = 4;
    private static final Duration STALL = Duration.ofSeconds(4);
    /**
     * What the in-flight limit allows in direct memory: each client has at most
     * {@link #PROXY_IN_FLIGHT} requests of one 1 MiB batch in progress, 12 × 4 × 1 MiB = 48 MiB,
     * plus what one socket read per connection brought in beyond them, plus Netty's chunk
     * granularity. Without the limit the proxy reads everything offered, up to its 128 MiB cap.
     */
    private static final long DIRECT_BUDGET_BYTES = 100L << 20;
    /** Heap and direct limits (256 MiB) plus metaspace, code cache and thread stacks. */
    private static final long RSS_BUDGET_BYTES = 384L << 20;

    @TempDir
    Path dir;

    @Test
    void proxyMemoryStaysBoundedWhileTheBrokerStallsAndEverythingIsAckedAfterwards() throws Exception {
        List<String> jvm = List.of("-Xmx" + PROXY_MEMORY_LIMIT, "-XX:MaxDirectMemorySize=" + PROXY_MEMORY_LIMIT,
                "-XX:+UseSerialGC");
        try (LocalCluster cluster = LocalCluster.builder("flood").brokers(1).leaseTtl(Duration.ofSeconds(10)).start();
             LaunchedProxy proxy = LaunchedProxy.start(cluster, dir, "flood-proxy",
                     JavaCommand.ofCurrentClasspath(jvm),
                     Map.of("LEASEHOLD_LIMITS_MAX_IN_FLIGHT_PER_CONNECTION", String.valueOf(PROXY_IN_FLIGHT)))) {
            cluster.createTopic("flood", 4);
            cluster.createTopic("steady", 1);
            BrokerProcess broker = cluster.broker(1);
            ProxyMemory memory = new ProxyMemory(proxy.adminUrl());
            long offered = (long) PRODUCERS * RECORDS_PER_PRODUCER * RECORD_BYTES;
            ExecutorService clients = Executors.newFixedThreadPool(PRODUCERS);
            long peak = 0;
            long peakDirect = 0;
            List<KafkaProducer<byte[], byte[]>> producers = new ArrayList<>();
            try {
                for (int i = 0; i < PRODUCERS; i++) {
                    producers.add(producer(proxy.address()));
                    producers.get(i).partitionsFor("flood");
                }
                broker.pause();
                List<Future<Long>> acked = new ArrayList<>();
                try {
                    for (KafkaProducer<byte[], byte[]> producer : producers) {
                        acked.add(clients.submit(() -> sendAll(producer)));
                    }
                    long stallEnd = System.nanoTime() + STALL.toNanos();
                    while (System.nanoTime() < stallEnd) {
                        peak = Math.max(peak, memory.usedBytes());
                        peakDirect = Math.max(peakDirect, memory.directBytes());
                        Thread.sleep(100);
                    }
                } finally {
                    broker.resume();
                }
                long total = 0;
                for (Future<Long> count : acked) {
                    total += count.get(120, TimeUnit.SECONDS);
                }
                long peakRss = ProxyMemory.peakRssBytes(proxy.process().pid());
                System.out.printf("flood: %d MB offered by %d producers while the broker was stopped %d s; proxy (-Xmx%s, "
                        + "direct %s) peaked at %d MB heap+direct (%d MB direct), %d MB resident; %d records acked "
                        + "after the broker continued%n", offered >> 20, PRODUCERS, STALL.toSeconds(), PROXY_MEMORY_LIMIT,
                        PROXY_MEMORY_LIMIT, peak >> 20, peakDirect >> 20, peakRss >> 20, total);
                assertThat(peakDirect).as("direct memory held for requests, at most what the in-flight limits allow")
                        .isLessThanOrEqualTo(DIRECT_BUDGET_BYTES);
                assertThat(peakRss).as("the proxy's peak resident memory").isLessThanOrEqualTo(RSS_BUDGET_BYTES);
                assertThat(total).as("records acknowledged after recovery").isEqualTo((long) PRODUCERS * RECORDS_PER_PRODUCER);
            } finally {
                clients.shutdownNow();
                // Also when a wait above failed: open producers would go on logging reconnects for the rest of the run.
                producers.forEach(producer -> producer.close(Duration.ofSeconds(5)));
            }
            assertThat(proxy.process().isAlive()).as("the proxy survived the flood").isTrue();
            assertThat(offered).as("the clients offered more than the proxy may hold").isGreaterThan(2 * PROXY_MEMORY_LIMIT_BYTES);
            assertThat(Files.readString(proxy.process().stderrLog())).as("proxy log").doesNotContain("OutOfMemoryError");
            try (SteadyTraffic steady = new SteadyTraffic(proxy.address(), "steady").start()) {
                await().atMost(Duration.ofSeconds(30)).until(() -> steady.completed() >= 3);
                steady.stopAndWait();
                assertThat(steady.failures()).as("a fresh client after the flood").isEmpty();
            }
        }
    }

    private static long sendAll(KafkaProducer<byte[], byte[]> producer) throws Exception {
        byte[] value = new byte[RECORD_BYTES];
        List<Future<RecordMetadata>> sends = new ArrayList<>();
        for (int i = 0; i < RECORDS_PER_PRODUCER; i++) {
            sends.add(producer.send(new ProducerRecord<>("flood", value)));
        }
        long acked = 0;
        for (Future<RecordMetadata> send : sends) {
            send.get(120, TimeUnit.SECONDS);
            acked++;
        }
        return acked;
    }

    private static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ProducerConfig.ACKS_CONFIG, "1");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        config.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, IN_FLIGHT);
        config.put(ProducerConfig.BATCH_SIZE_CONFIG, 1 << 20);
        config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        config.put(ProducerConfig.BUFFER_MEMORY_CONFIG, 64L << 20);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 110_000);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 60_000);
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        return new KafkaProducer<>(config);
    }
}
