package io.leasehold.routing.bench;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.PutOption;
import io.leasehold.routing.claim.ClaimResult;
import io.leasehold.routing.claim.OwnershipClaimer;
import io.leasehold.routing.etcd.EtcdBytes;
import io.leasehold.routing.keys.BrokerRegistration;
import io.leasehold.routing.keys.KeySchema;
import io.leasehold.routing.snapshot.BrokerAddress;
import io.leasehold.routing.testing.EtcdServer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * Benchmark of the routing table (not a test; run it with {@code scripts/bench-routing-table}).
 *
 * <ol>
 *   <li>Starts a loopback etcd and writes 100,000 partition ownership keys (1,000 topics x 100
 *   partitions), 1,000 group keys and 10 broker registrations.</li>
 *   <li>Starts {@link ObserverProcess} in a second JVM with {@code -Xmx100m}: it times the load of
 *   the whole table, measures the heap the table retains, and the cost of a partition lookup.</li>
 *   <li>Claims partitions one at a time with an {@link OwnershipClaimer} here and times each from
 *   the moment etcd acknowledged the claim to the moment the other process reports seeing it.</li>
 * </ol>
 * Figures go to stdout, with the targets next to them.
 */
public final class RoutingTableBenchmark {

    private static final int TOPICS = 1_000;
    private static final int PARTITIONS_PER_TOPIC = 100;
    private static final int GROUPS = 1_000;
    private static final int BROKERS = 10;
    private static final int LOADS = 3;
    private static final int WARMUP_CLAIMS = 200;
    private static final int MEASURED_CLAIMS = 2_000;
    private static final int TXN_OPS = 128;

    private RoutingTableBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        KeySchema keys = new KeySchema(KeySchema.DEFAULT_PREFIX);
        System.out.printf("machine: %d cores, Java %s, %s%n", Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"), System.getProperty("os.name"));
        try (EtcdServer etcd = EtcdServer.start();
             Client client = Client.builder().endpoints(etcd.endpoint()).build()) {
            long populateStarted = System.nanoTime();
            populate(client.getKVClient(), keys);
            System.out.printf("wrote %,d partition keys, %,d group keys, %d brokers in %.1f s%n",
                    TOPICS * PARTITIONS_PER_TOPIC, GROUPS, BROKERS, (System.nanoTime() - populateStarted) / 1e9);
            Observer observer = Observer.start(etcd.endpoint(), keys);
            try {
                observer.awaitReady();
                measurePropagation(client, keys, observer);
            } finally {
                observer.stop();
            }
        }
    }

    private static void populate(KV kv, KeySchema keys) throws Exception {
        List<Op> ops = new ArrayList<>();
        for (int t = 0; t < TOPICS; t++) {
            for (int p = 0; p < PARTITIONS_PER_TOPIC; p++) {
                ops.add(put(keys.partitionLeaseKey(String.format("bench-topic-%04d", t), p), Integer.toString((t + p) % BROKERS)));
            }
        }
        for (int g = 0; g < GROUPS; g++) {
            ops.add(put(keys.groupLeaseKey("bench-group-" + g), Integer.toString(g % BROKERS)));
        }
        for (int b = 0; b < BROKERS; b++) {
            ops.add(put(keys.brokerKey(b), BrokerRegistration.toJson(new BrokerAddress(b, "127.0.0.1", 19092 + b, null))));
        }
        List<CompletableFuture<?>> inFlight = new ArrayList<>();
        for (int from = 0; from < ops.size(); from += TXN_OPS) {
            Op[] batch = ops.subList(from, Math.min(ops.size(), from + TXN_OPS)).toArray(Op[]::new);
            inFlight.add(kv.txn().Then(batch).commit());
            if (inFlight.size() == 16) {
                CompletableFuture.allOf(inFlight.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
                inFlight.clear();
            }
        }
        CompletableFuture.allOf(inFlight.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    }

    private static Op put(String key, String value) {
        return Op.put(EtcdBytes.of(key), EtcdBytes.of(value), PutOption.DEFAULT);
    }

    private static void measurePropagation(Client client, KeySchema keys, Observer observer) throws Exception {
        Histogram micros = new Histogram(TimeUnit.SECONDS.toMicros(10), 3);
        Histogram commitMicros = new Histogram(TimeUnit.SECONDS.toMicros(10), 3);
        Histogram endToEndMicros = new Histogram(TimeUnit.SECONDS.toMicros(10), 3);
        int seenBeforeAck = 0;
        try (OwnershipClaimer claimer = OwnershipClaimer.start(client, keys, 1, Duration.ofSeconds(10))) {
            for (int i = 0; i < WARMUP_CLAIMS + MEASURED_CLAIMS; i++) {
                long requested = System.nanoTime();
                ClaimResult result = claimer.claimPartition(ObserverProcess.PROPAGATION_TOPIC, i).get(10, TimeUnit.SECONDS);
                long committed = System.nanoTime();
                if (!(result instanceof ClaimResult.Won)) {
                    throw new IllegalStateException("benchmark claim " + i + " was not won: " + result);
                }
                long seen = observer.awaitSeen(i);
                if (i >= WARMUP_CLAIMS) {
                    if (seen < committed) {
                        seenBeforeAck++;
                    }
                    micros.recordValue(Math.max(0, seen - committed) / 1_000);
                    commitMicros.recordValue((committed - requested) / 1_000);
                    endToEndMicros.recordValue((seen - requested) / 1_000);
                }
            }
        }
        System.out.printf("claim commit (request -> etcd ack): p50 %.2f ms, p99 %.2f ms%n",
                commitMicros.getValueAtPercentile(50) / 1e3, commitMicros.getValueAtPercentile(99) / 1e3);
        System.out.printf("propagation (claim acked -> seen by the other process), %d claims: p50 %.2f ms, p99 %.2f ms, "
                        + "max %.2f ms (target p99 <= 50 ms); seen before the ack reached the claimer: %d%n",
                MEASURED_CLAIMS, micros.getValueAtPercentile(50) / 1e3, micros.getValueAtPercentile(99) / 1e3,
                micros.getMaxValue() / 1e3, seenBeforeAck);
        System.out.printf("claim requested -> seen by the other process (upper bound, includes the commit): p50 %.2f ms, "
                + "p99 %.2f ms, max %.2f ms%n", endToEndMicros.getValueAtPercentile(50) / 1e3,
                endToEndMicros.getValueAtPercentile(99) / 1e3, endToEndMicros.getMaxValue() / 1e3);
    }

    /** The child JVM running {@link ObserverProcess}, and the facts it reports. */
    private static final class Observer {
        private final Process process;
        private final CountDownLatch ready = new CountDownLatch(1);
        private final ConcurrentHashMap<Integer, Long> seenAt = new ConcurrentHashMap<>();

        private Observer(Process process) {
            this.process = process;
        }

        static Observer start(String endpoint, KeySchema keys) throws Exception {
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            Process process = new ProcessBuilder(java, "-Xmx100m", "-Xms100m", "-XX:+UseG1GC",
                    "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                    "-cp", System.getProperty("java.class.path"), ObserverProcess.class.getName(),
                    endpoint, keys.prefix(), Integer.toString(LOADS))
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
            Observer observer = new Observer(process);
            Thread reader = new Thread(observer::readReports, "observer-reports");
            reader.setDaemon(true);
            reader.start();
            return observer;
        }

        void awaitReady() throws InterruptedException {
            if (!ready.await(180, TimeUnit.SECONDS)) {
                throw new IllegalStateException("observer process did not get ready within 180 s");
            }
        }

        long awaitSeen(int partition) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            Long seen;
            while ((seen = seenAt.remove(partition)) == null) {
                if (System.nanoTime() > deadline || !process.isAlive()) {
                    throw new IllegalStateException("observer did not see partition " + partition + " within 10 s");
                }
                Thread.onSpinWait();
            }
            return seen;
        }

        void stop() throws InterruptedException {
            try {
                process.getOutputStream().close();
            } catch (java.io.IOException e) {
                // Already gone.
            }
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }

        private void readReports() {
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) {
                    long now = System.nanoTime();
                    String[] fields = line.split(" ");
                    switch (fields[0]) {
                        case "SEEN" -> seenAt.put(Integer.parseInt(fields[1]), now);
                        case "READY" -> ready.countDown();
                        case "LOAD" -> System.out.printf("load %s (%s keys in the snapshot): %.0f ms%s (target <= 2000 ms)%n",
                                Integer.parseInt(fields[1]) + 1, fields[3], Long.parseLong(fields[2]) / 1e6,
                                fields[1].equals("0") ? " [cold JVM]" : "");
                        case "HEAP" -> System.out.printf("heap retained by the loaded table: %.1f MiB, in a JVM limited to %d MiB"
                                        + " (target <= 100 MB)%n", Long.parseLong(fields[1]) / 1048576.0, Long.parseLong(fields[2]) >> 20);
                        case "LOOKUP" -> System.out.printf("partition lookup: best %s ns, median %s ns, worst %s ns per lookup"
                                + " (7 rounds of 20M random lookups over 100k partitions); bytes allocated in 20M lookups: %s"
                                + " (target <= 100 ns)%n", fields[1], fields[2], fields[3], fields[4]);
                        default -> System.out.println("observer: " + line);
                    }
                }
            } catch (java.io.IOException e) {
                System.out.println("observer output ended: " + e);
            }
        }
    }
}
