package io.leasehold.bench;

import io.leasehold.bench.cluster.FileTrees;
import io.leasehold.bench.cluster.KafkaCluster;
import io.leasehold.bench.cluster.KafkaNode;
import io.leasehold.bench.cluster.LaunchedProxy;
import io.leasehold.bench.cluster.OwnershipSeeder;
import io.leasehold.bench.cluster.ProxyInstance;
import io.leasehold.bench.load.ConsumerLoad;
import io.leasehold.bench.load.LoadResult;
import io.leasehold.bench.load.ProducerLoad;
import io.leasehold.bench.load.ProducerWorkload;
import io.leasehold.bench.load.Timing;
import io.leasehold.bench.load.TopicFiller;
import io.leasehold.bench.process.ChildProcessStopper;
import io.leasehold.bench.process.ProcessStats;
import io.leasehold.bench.report.SizingRow;
import io.leasehold.bench.report.SizingTable;
import io.leasehold.bench.sizing.IdleConnections;
import io.leasehold.bench.sizing.ListenerSecurity;
import io.leasehold.bench.suite.CompilerWarmUp;
import io.leasehold.bench.suite.KafkaBackend;
import io.leasehold.bench.suite.Placement;
import io.leasehold.routing.keys.KeySchema;
import io.leasehold.routing.testing.EtcdServer;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The sizing table of docs/operations.md: proxy CPU per MB/s and resident memory at steady,
 * rate-limited traffic (produce acks=1 and acks=all, consume; 5, 20 and 50 MB/s of 1 KiB records)
 * through one proxy per listener kind (plaintext, TLS, SASL SCRAM-SHA-256), each started with
 * the JVM flags {@code bin/leasehold-proxy} chooses for a container memory limit; the latency
 * the plaintext proxy adds to a light acks=all load; and its memory per 1,000 idle connections.
 * One real Kafka broker leads every partition; etcd is real. Writes every cell to a CSV, and
 * with {@code --render CSV DOC} rewrites DOC's sizing section from that CSV.
 */
public final class SizingRun {

    private static final String PRODUCE_TOPIC = "sizing-produce";
    private static final String CONSUME_TOPIC = "sizing-consume";
    private static final int PARTITIONS = 3;
    private static final int RECORD_BYTES = 1024;
    /** About 100 MB for the consumers to read round and round. */
    private static final long CONSUME_RECORDS = 100_000;
    private static final List<Double> RATES = List.of(5.0, 20.0, 50.0);
    private static final int BUFFER = 8 << 20;
    private static final int LINGER_MS = 5;
    /** The light load at which latency is compared: acks=all, linger 0, 1,000 records/s. */
    private static final ProducerWorkload LIGHT = new ProducerWorkload(1, RECORD_BYTES, "all", 0, 1000);
    private static final Timing LIGHT_TIMING = new Timing(Duration.ofSeconds(3), Duration.ofSeconds(10));
    private static final int LATENCY_ROUNDS = 3;
    /** Passes of the compiler warm-up: this rate, produced then consumed, for {@link CompilerWarmUp#RUN_PER_WORKLOAD} each. */
    private static final double WARM_UP_RATE = 20;

    /**
     * @param proxyJvmOptions  the proxies' JVM flags (as {@code bin/leasehold-proxy} chooses them)
     * @param proxyJvmAbout    how those flags were chosen, for the table's header
     * @param cellWarmUp       unmeasured traffic at a cell's rate before the cell is measured
     * @param cellWindow       each cell's measured window (after 1 s that is counted for CPU but not the rate)
     * @param compilerWarmUp   each proxy's longest compiler warm-up before its first cell (default 180 s: C2 needs
     *                         60-120 s of traffic to settle on 2 cores, and cells measured before that count the compiler)
     * @param idleConnections  how many idle connections to open to the plaintext proxy
     */
    record Options(Path csv, List<String> proxyJvmOptions, String proxyJvmAbout, String commit, Duration cellWarmUp,
            Duration cellWindow, Duration compilerWarmUp, int idleConnections, Path logDir) {
    }

    private final Options options;
    private final PrintStream out;
    private final String classpath;
    private final List<String> about = new ArrayList<>();
    private final List<SizingRow> rows = new ArrayList<>();

    SizingRun(Options options, PrintStream out, String classpath) {
        this.options = options;
        this.out = out;
        this.classpath = classpath;
    }

    static final String USAGE = "usage: SizingRun --proxy-jvm FLAGS --proxy-jvm-about TEXT [--csv FILE] [--commit ID]"
            + " [--cell-warm-up SECONDS] [--window SECONDS] [--compiler-warm-up SECONDS] [--idle-connections N]\n"
            + "       SizingRun --render CSV DOC";

    public static void main(String[] args) throws IOException {
        if (args.length == 3 && args[0].equals("--render")) {
            render(Path.of(args[1]), Path.of(args[2]));
            return;
        }
        // Ctrl-C or SIGTERM skips the close() of the broker, etcd and proxies below; this stops them.
        ChildProcessStopper.stopChildrenWhenThisJvmExits();
        Options options;
        try {
            options = parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.println(USAGE);
            System.exit(2);
            return;
        }
        new SizingRun(options, System.out, System.getProperty("java.class.path")).run();
        System.exit(0);
    }

    /** Rewrites the section between the sizing markers of {@code document} from {@code csv}. */
    static void render(Path csv, Path document) throws IOException {
        String table = SizingTable.render(Files.readAllLines(csv));
        Files.writeString(document, SizingTable.replaceSection(Files.readString(document), table));
    }

    static Options parse(String[] args) {
        Path csv = Path.of("docs", "benchmarks", "sizing.csv");
        String jvm = null;
        String jvmAbout = null;
        String commit = "unknown";
        int cellWarmUp = 5;
        int window = 10;
        int compilerWarmUp = 180;
        int idle = 1000;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--csv" -> csv = Path.of(BenchOptions.value(args, ++i, "--csv"));
                case "--proxy-jvm" -> jvm = BenchOptions.value(args, ++i, "--proxy-jvm");
                case "--proxy-jvm-about" -> jvmAbout = BenchOptions.value(args, ++i, "--proxy-jvm-about");
                case "--commit" -> commit = BenchOptions.value(args, ++i, "--commit");
                case "--cell-warm-up" -> cellWarmUp = BenchOptions.positive(
                        BenchOptions.value(args, ++i, "--cell-warm-up"), "--cell-warm-up");
                case "--window" -> window = BenchOptions.positive(BenchOptions.value(args, ++i, "--window"),
                        "--window");
                case "--compiler-warm-up" -> compilerWarmUp = BenchOptions.positive(
                        BenchOptions.value(args, ++i, "--compiler-warm-up"), "--compiler-warm-up");
                case "--idle-connections" -> idle = BenchOptions.positive(
                        BenchOptions.value(args, ++i, "--idle-connections"), "--idle-connections");
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (jvm == null || jvm.isBlank() || jvmAbout == null) {
            throw new IllegalArgumentException("--proxy-jvm and --proxy-jvm-about are required (scripts/bench-sizing"
                    + " takes the flags from bin/leasehold-proxy)");
        }
        return new Options(csv, List.of(jvm.trim().split("\\s+")), jvmAbout, commit, Duration.ofSeconds(cellWarmUp),
                Duration.ofSeconds(window), Duration.ofSeconds(compilerWarmUp), idle,
                Path.of("benchmarks", "target", "bench-logs"));
    }

    void run() {
        about("date", Instant.now().truncatedTo(ChronoUnit.MINUTES).toString());
        about("commit", options.commit());
        about("machine", MachineInfo.describe());
        about("proxy jvm", options.proxyJvmAbout() + ": `" + String.join(" ", options.proxyJvmOptions()) + "`");
        about("cell", String.format(Locale.ROOT, "%d s of traffic at the target rate not counted, then a run of"
                        + " 1 + %d s whose proxy CPU is divided by the payload it moved (the reached rate counts the"
                        + " last %d s); before its first cell each proxy had a compiler warm-up of up to %d s"
                        + " (passes of 5 s produce then 5 s consume at %.0f MB/s, until C2 used under 0.1 CPU s in a pass)",
                options.cellWarmUp().toSeconds(), options.cellWindow().toSeconds(), options.cellWindow().toSeconds(),
                options.compilerWarmUp().toSeconds(), WARM_UP_RATE));
        about("load average at start", MachineInfo.loadAverage());
        Path secrets = directory();
        List<ListenerSecurity> modes = List.of(ListenerSecurity.plaintext(), ListenerSecurity.tls(secrets),
                ListenerSecurity.sasl(secrets));
        try (EtcdServer etcd = EtcdServer.start();
                KafkaCluster cluster = KafkaCluster.start(classpath, 1, options.logDir());
                OwnershipSeeder seeder = new OwnershipSeeder(etcd.endpoint(), new KeySchema(KeySchema.DEFAULT_PREFIX))) {
            KafkaBackend backend = new KafkaBackend(cluster, seeder);
            backend.createTopic(PRODUCE_TOPIC, PARTITIONS, Placement.ONE_OWNER);
            backend.createTopic(CONSUME_TOPIC, PARTITIONS, Placement.ONE_OWNER);
            new TopicFiller().fill(cluster.bootstrap(), CONSUME_TOPIC, CONSUME_RECORDS, RECORD_BYTES);
            List<String> bootstrap = cluster.nodes().stream().map(KafkaNode::address).toList();
            Map<ListenerSecurity, LaunchedProxy> proxies = new LinkedHashMap<>();
            try {
                for (ListenerSecurity mode : modes) {
                    proxies.put(mode, ProxyInstance.startAsOperator(classpath, etcd.endpoint(), bootstrap,
                            options.logDir(), "sizing-" + mode.name().toLowerCase(Locale.ROOT),
                            options.proxyJvmOptions(), environment(mode)));
                }
                for (Map.Entry<ListenerSecurity, LaunchedProxy> entry : proxies.entrySet()) {
                    measureThroughput(entry.getKey(), entry.getValue());
                }
                LaunchedProxy plaintext = proxies.get(modes.get(0));
                measureLatency(cluster.bootstrap(), plaintext);
                measureIdleConnections(modes.get(0), plaintext);
            } finally {
                proxies.values().forEach(LaunchedProxy::close);
            }
        } finally {
            FileTrees.deleteRecursively(secrets);
        }
        about("load average at end", MachineInfo.loadAverage());
        writeCsv();
    }

    /** The listener's overrides, and room for the idle connections, which all come from 127.0.0.1. */
    private Map<String, String> environment(ListenerSecurity mode) {
        Map<String, String> environment = new HashMap<>(mode.proxyEnvironment());
        environment.put("LEASEHOLD_LIMITS_MAX_CONNECTIONS_PER_IP", Integer.toString(options.idleConnections() + 100));
        return environment;
    }

    private void measureThroughput(ListenerSecurity mode, LaunchedProxy proxy) {
        Map<String, Object> client = mode.clientSettings();
        ProducerLoad warmProduce = new ProducerLoad(new Timing(Duration.ZERO, CompilerWarmUp.RUN_PER_WORKLOAD), BUFFER,
                client);
        ConsumerLoad warmConsume = new ConsumerLoad(new Timing(Duration.ZERO, CompilerWarmUp.RUN_PER_WORKLOAD),
                Duration.ofSeconds(30), client, WARM_UP_RATE * 1e6);
        String warmUp = new CompilerWarmUp(options.compilerWarmUp(), BenchOptions.QUIET_C2_SECONDS).untilSettled(
                proxy.pid(), () -> {
                    warmProduce.run(proxy.bootstrap(), PRODUCE_TOPIC, workload("1", WARM_UP_RATE));
                    warmConsume.run(proxy.bootstrap(), CONSUME_TOPIC);
                });
        about("warm-up " + mode.name(), warmUp);
        for (String acks : List.of("1", "all")) {
            for (double rate : RATES) {
                ProducerWorkload workload = workload(acks, rate);
                new ProducerLoad(new Timing(Duration.ZERO, options.cellWarmUp()), BUFFER, client)
                        .run(proxy.bootstrap(), PRODUCE_TOPIC, workload);
                ProducerLoad load = new ProducerLoad(new Timing(Duration.ofSeconds(1), options.cellWindow()), BUFFER,
                        client);
                record(mode, "produce", acks, rate, proxy, () -> load.run(proxy.bootstrap(), PRODUCE_TOPIC, workload));
            }
        }
        for (double rate : RATES) {
            new ConsumerLoad(new Timing(Duration.ZERO, options.cellWarmUp()), Duration.ofSeconds(30), client, rate * 1e6)
                    .run(proxy.bootstrap(), CONSUME_TOPIC);
            ConsumerLoad load = new ConsumerLoad(new Timing(Duration.ofSeconds(1), options.cellWindow()),
                    Duration.ofSeconds(30), client, rate * 1e6);
            record(mode, "consume", "", rate, proxy, () -> load.run(proxy.bootstrap(), CONSUME_TOPIC));
        }
    }

    private void record(ListenerSecurity mode, String kind, String acks, double rate, LaunchedProxy proxy,
            Supplier<LoadResult> cell) {
        ProcessStats stats = new ProcessStats(proxy.pid());
        ProcessStats.Sample before = stats.sample();
        long start = System.nanoTime();
        LoadResult result = cell.get();
        double wall = (System.nanoTime() - start) / 1e9;
        ProcessStats.Sample after = stats.sample();
        SizingRow row = SizingRow.throughput(kind, mode.name(), acks, rate, result.megabytesPerSecond(),
                after.cpuSecondsSince(before), wall, result.totalPayloadBytes() / 1e6, after.rssBytes() / 1048576.0,
                result.errors(), MachineInfo.loadAverage());
        rows.add(row);
        out.printf(Locale.ROOT, "%-9s %-7s %-8s %4.0f MB/s: reached %5.1f MB/s, proxy %5.2f CPU s over %5.1f s,"
                        + " %6.1f millicores per MB/s, RSS %4.0f MiB, errors %d%s, load %s%n",
                mode.name(), kind, acks.isEmpty() ? "" : "acks=" + acks, rate, row.achievedMegabytesPerSecond(), row.proxyCpuSeconds(), wall,
                row.millicoresPerMegabytePerSecond(), row.rssMebibytes(), result.errors(),
                result.firstError() == null ? "" : " (" + result.firstError() + ")", row.loadAverage());
    }

    /** Direct and through the proxy in turn, {@link #LATENCY_ROUNDS} times, so that both see the same machine. */
    private void measureLatency(String direct, LaunchedProxy proxy) {
        ProducerLoad load = new ProducerLoad(LIGHT_TIMING, BUFFER);
        Map<String, String> paths = new LinkedHashMap<>();
        paths.put("direct", direct);
        paths.put("plaintext", proxy.bootstrap());
        for (int round = 1; round <= LATENCY_ROUNDS; round++) {
            int thisRound = round;
            paths.forEach((name, bootstrap) -> {
                LoadResult result = load.run(bootstrap, PRODUCE_TOPIC, LIGHT);
                SizingRow row = SizingRow.latency(name, result.megabytesPerSecond(), result.latencyMillis(50),
                        result.latencyMillis(99), result.errors(), MachineInfo.loadAverage());
                rows.add(row);
                out.printf(Locale.ROOT, "latency round %d %-9s %s: p50 %.2f ms, p99 %.2f ms, errors %d, load %s%n",
                        thisRound, name, LIGHT.label(), row.p50Millis(), row.p99Millis(), row.errors(),
                        row.loadAverage());
            });
        }
    }

    private void measureIdleConnections(ListenerSecurity mode, LaunchedProxy proxy) {
        ProcessStats stats = new ProcessStats(proxy.pid());
        double heapBefore = proxy.heapUsedAfterGc() / 1048576.0;
        double rssBefore = stats.sample().rssBytes() / 1048576.0;
        String[] address = proxy.bootstrap().split(":");
        try (IdleConnections connections = IdleConnections.open(address[0], Integer.parseInt(address[1]),
                options.idleConnections())) {
            // Let the proxy finish whatever each connection's arrival started before reading its memory.
            sleep(Duration.ofSeconds(3));
            double heapAfter = proxy.heapUsedAfterGc() / 1048576.0;
            double rssAfter = stats.sample().rssBytes() / 1048576.0;
            SizingRow row = SizingRow.idle(mode.name(), connections.size(), rssBefore, rssAfter, heapBefore,
                    heapAfter, MachineInfo.loadAverage());
            rows.add(row);
            out.printf(Locale.ROOT, "idle %d connections: RSS %.0f -> %.0f MiB, heap after GC %.1f -> %.1f MiB,"
                    + " load %s%n", connections.size(), rssBefore, rssAfter, heapBefore, heapAfter, row.loadAverage());
        }
    }

    private static ProducerWorkload workload(String acks, double megabytesPerSecond) {
        return new ProducerWorkload(1, RECORD_BYTES, acks, LINGER_MS, megabytesPerSecond * 1e6 / RECORD_BYTES);
    }

    private void about(String key, String value) {
        about.add("# " + key + ": " + value);
        out.println(key + ": " + value);
    }

    private void writeCsv() {
        List<String> lines = new ArrayList<>(about);
        lines.add(SizingRow.HEADER);
        rows.forEach(row -> lines.add(row.toCsv()));
        try {
            Files.createDirectories(options.csv().toAbsolutePath().getParent());
            Files.write(options.csv(), lines);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + options.csv(), e);
        }
        out.println("wrote " + options.csv());
    }

    private static Path directory() {
        try {
            return Files.createTempDirectory("leasehold-sizing-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a directory for the listener's key and users", e);
        }
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
