package io.leasehold.bench;

import io.leasehold.bench.cluster.KafkaCluster;
import io.leasehold.bench.cluster.KafkaNode;
import io.leasehold.bench.cluster.KroxyliciousInstance;
import io.leasehold.bench.cluster.LaunchedProxy;
import io.leasehold.bench.cluster.OwnershipSeeder;
import io.leasehold.bench.cluster.Presentation;
import io.leasehold.bench.cluster.ProxyInstance;
import io.leasehold.bench.load.LoadResult;
import io.leasehold.bench.load.ProducerLoad;
import io.leasehold.bench.load.ProducerWorkload;
import io.leasehold.bench.load.Timing;
import io.leasehold.bench.process.ChildProcessStopper;
import io.leasehold.bench.process.ProcessStats;
import io.leasehold.bench.process.ThreadCpu;
import io.leasehold.bench.report.Spread;
import io.leasehold.bench.report.WindowedCpuTable;
import io.leasehold.bench.suite.CompilerWarmUp;
import io.leasehold.bench.suite.KafkaBackend;
import io.leasehold.bench.suite.Placement;
import io.leasehold.routing.keys.KeySchema;
import io.leasehold.routing.testing.EtcdServer;
import io.leasehold.testing.JavaCommand;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Proxy CPU seconds per GB produced, for two builds of the Leasehold proxy side by side (and
 * optionally Kroxylicious) in front of one Kafka broker that owns every partition, or with
 * {@code --owners 3} three brokers each leading a third of the partitions (the proxies in either
 * presentation, {@code --presentation}): acks=1,
 * 1 KiB records, linger 5 ms (or with {@code --acks all} the suite's acks=all workloads, where
 * throughput and latency count as much as CPU), the paths' order rotating each round. CPU time of the
 * proxy process ({@code /proc}) does not count time spent waiting for a core, so on a shared
 * machine it is far steadier than throughput; running both builds in one session puts them
 * under the same conditions. A warm-up first runs the workloads on every proxy until its C2
 * compiler settles ({@link CompilerWarmUp}), so that compilation is not counted against the
 * first rounds. Each producer run is 1 s warm-up + the measured window (10 s unless asked), and
 * CPU is divided by every payload byte of the run. The
 * fourth workload holds two producers to 20,000 records/s: small requests, where the cost per
 * request shows. {@code --workload TEXT} keeps only the workloads whose label contains TEXT.
 *
 * <p>With {@code --fresh SECONDS} there is no warm-up: each proxy starts fresh and is measured
 * from its first request with its JIT compiler counted ({@link FreshStartMeasurement}), under one
 * workload (acks=all, 4 producers, linger 5 ms unless {@code --acks}/{@code --workload} pick
 * another); the baseline jar is optional then. {@code --proxy-jvm-options} adds JVM flags to the
 * current build's proxy only, so a flag can be measured against the baseline in one run;
 * {@code --proxy-java} runs the current build on another Java runtime, and with {@code --fresh},
 * {@code --aot-training SECONDS} first writes it a JDK 25 ahead-of-time cache in a training run
 * under the same workload ({@link AotCacheTraining}) and starts it with that cache.
 */
public final class ProxyCpuComparison {

    private static final String TOPIC = "cpu-produce";
    private static final int PARTITIONS = 9;
    private static final int BUFFER = 4 << 20;
    private static final List<ProducerWorkload> ACKS_ONE = List.of(
            new ProducerWorkload(1, 1024, "1", 5, 0),
            new ProducerWorkload(2, 1024, "1", 5, 0),
            new ProducerWorkload(4, 1024, "1", 5, 0),
            new ProducerWorkload(2, 1024, "1", 5, 20_000));
    /**
     * The suite's acks=all workloads against one owner: one producer bound by latency, four by
     * CPU; and one producer held to 5,000 records/s, where the machine has idle CPU and the
     * latency a path adds to each request shows.
     */
    private static final List<ProducerWorkload> ACKS_ALL = List.of(
            new ProducerWorkload(1, 1024, "all", 0, 0),
            new ProducerWorkload(4, 1024, "all", 5, 0),
            new ProducerWorkload(1, 1024, "all", 0, 5_000));
    private static final String BASELINE = "baseline";
    private static final String CURRENT = "current";
    private static final String KROXYLICIOUS = "kroxylicious";
    private final PrintStream out;
    private final Options options;

    /**
     * @param baselineJar  the baseline build's proxy jar, put in place of the current one
     * @param rounds       measured rounds
     * @param kroxylicious the Kroxylicious launcher's class path, or null to leave it out
     * @param profile      record the current build with Java Flight Recorder, and dump its perf map, into {@code logDir}
     * @param syscalls     count each proxy's system calls per MB with {@code perf stat}
     * @param warmUp       the longest warm-up of each proxy before the first round (until its C2 compiler settles)
     * @param window       each run's measured window (after 1 s not counted)
     * @param workloads    the acks=1 workloads, or with {@code --acks all} the acks=all ones
     * @param owners       Kafka brokers, each leading an equal share of the partitions (1 or 3)
     * @param nodePerOwner both Leasehold builds in node-per-owner presentation instead of single-node
     * @param fresh        each proxy measured from a fresh start for this long, without warm-up; null for the
     *                     warmed-up rounds
     * @param proxyJvmOptions extra JVM flags for the current build's proxy only
     * @param proxyJava    the Java runtime of the current build's proxy (the others run on this JVM's)
     * @param aotTraining  with {@code fresh}: how long a training run writes the current build an AOT
     *                     cache it then starts with (JDK 25 or later); null for none
     */
    record Options(Path baselineJar, int rounds, String kroxylicious, boolean profile, boolean syscalls, Duration warmUp,
                   Duration window, List<ProducerWorkload> workloads, Path logDir, int owners, boolean nodePerOwner,
                   Duration fresh, List<String> proxyJvmOptions, Path proxyJava, Duration aotTraining) {
    }

    ProxyCpuComparison(Options options, PrintStream out) {
        this.options = options;
        this.out = out;
    }

    static final String USAGE = "usage: ProxyCpuComparison --baseline PROXY_JAR [--rounds N] [--warm-up SECONDS]"
            + " [--window SECONDS] [--acks 1|all] [--workload TEXT] [--owners 1|3]"
            + " [--presentation single-node|node-per-owner] [--kroxylicious] [--syscalls] [--profile]"
            + " [--proxy-jvm-options \"FLAGS\"]\n"
            + "       ProxyCpuComparison --fresh SECONDS [--baseline PROXY_JAR] [--rounds N] [--acks 1|all]"
            + " [--workload TEXT] [--kroxylicious] [--proxy-jvm-options \"FLAGS\"] [--proxy-java JAVA_HOME]"
            + " [--aot-training SECONDS]";
    /** The workload of {@code --fresh} unless {@code --workload} picks another: acks=all, 4 producers, linger 5 ms. */
    private static final ProducerWorkload FRESH_DEFAULT = ACKS_ALL.get(1);

    public static void main(String[] args) {
        // Ctrl-C or SIGTERM skips the close() of the brokers, etcd and proxies below; this stops them.
        ChildProcessStopper.stopChildrenWhenThisJvmExits();
        Options options;
        try {
            options = parse(args, System.getProperty(BenchMain.KROXYLICIOUS_CLASSPATH_PROPERTY));
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.println(USAGE);
            System.exit(2);
            return;
        }
        new ProxyCpuComparison(options, System.out).run();
        System.exit(0);
    }

    /** Parses arguments; throws IllegalArgumentException naming the bad argument. */
    static Options parse(String[] args, String kroxyliciousClasspath) {
        Path baseline = null;
        int rounds = 0;
        int warmUpSeconds = 120;
        int windowSeconds = 10;
        List<ProducerWorkload> workloads = ACKS_ONE;
        boolean profile = false;
        boolean kroxylicious = false;
        boolean syscalls = false;
        String workloadText = null;
        int owners = 1;
        boolean nodePerOwner = false;
        boolean acksGiven = false;
        Duration fresh = null;
        List<String> proxyJvmOptions = List.of();
        Path proxyJava = JavaCommand.currentJavaHome();
        Duration aotTraining = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--baseline" -> baseline = Path.of(BenchOptions.value(args, ++i, "--baseline"));
                case "--rounds" -> rounds = BenchOptions.positive(BenchOptions.value(args, ++i, "--rounds"), "--rounds");
                case "--warm-up" -> warmUpSeconds = BenchOptions.positive(BenchOptions.value(args, ++i, "--warm-up"), "--warm-up");
                case "--window" -> windowSeconds = BenchOptions.positive(BenchOptions.value(args, ++i, "--window"),
                        "--window");
                case "--fresh" -> fresh = Duration.ofSeconds(
                        BenchOptions.positive(BenchOptions.value(args, ++i, "--fresh"), "--fresh"));
                case "--proxy-jvm-options" -> proxyJvmOptions = Arrays.stream(
                        BenchOptions.value(args, ++i, "--proxy-jvm-options").trim().split("\\s+"))
                        .filter(option -> !option.isEmpty()).toList();
                case "--proxy-java" -> proxyJava = Path.of(BenchOptions.value(args, ++i, "--proxy-java"));
                case "--aot-training" -> aotTraining = Duration.ofSeconds(
                        BenchOptions.positive(BenchOptions.value(args, ++i, "--aot-training"), "--aot-training"));
                case "--acks" -> workloads = switch (BenchOptions.value(args, ++i, "--acks")) {
                    case "1" -> {
                        acksGiven = true;
                        yield ACKS_ONE;
                    }
                    case "all" -> {
                        acksGiven = true;
                        yield ACKS_ALL;
                    }
                    default -> throw new IllegalArgumentException("--acks must be 1 or all, was " + args[i]);
                };
                case "--workload" -> workloadText = BenchOptions.value(args, ++i, "--workload");
                case "--owners" -> owners = switch (BenchOptions.value(args, ++i, "--owners")) {
                    case "1" -> 1;
                    case "3" -> 3;
                    default -> throw new IllegalArgumentException("--owners must be 1 or 3, was " + args[i]);
                };
                case "--presentation" -> nodePerOwner = switch (BenchOptions.value(args, ++i, "--presentation")) {
                    case "single-node" -> false;
                    case "node-per-owner" -> true;
                    default -> throw new IllegalArgumentException(
                            "--presentation must be single-node or node-per-owner, was " + args[i]);
                };
                case "--profile" -> profile = true;
                case "--kroxylicious" -> kroxylicious = true;
                case "--syscalls" -> syscalls = true;
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (rounds == 0) {
            rounds = fresh == null ? 5 : 1;
        }
        if (fresh != null && !acksGiven) {
            // --workload picks among the acks=all workloads; without either option, the default.
            workloads = workloadText == null ? List.of(FRESH_DEFAULT) : ACKS_ALL;
        }
        if (workloadText != null) {
            String text = workloadText;
            List<ProducerWorkload> all = workloads;
            workloads = all.stream().filter(w -> w.label().contains(text)).toList();
            if (workloads.isEmpty()) {
                throw new IllegalArgumentException("--workload " + text + " matches none of "
                        + all.stream().map(ProducerWorkload::label).toList());
            }
        }
        if (fresh != null) {
            // One workload per fresh run: the first that matched.
            workloads = workloads.subList(0, 1);
        }
        // With --fresh the baseline is optional: the current build against Kroxylicious is the figure asked for.
        boolean baselineRequired = fresh == null;
        if ((baselineRequired || baseline != null) && (baseline == null || !Files.isRegularFile(baseline))) {
            throw new IllegalArgumentException("--baseline must name the baseline build's proxy jar, was " + baseline);
        }
        if (!Files.isExecutable(proxyJava.resolve("bin").resolve("java"))) {
            throw new IllegalArgumentException("--proxy-java must name a Java runtime (a directory with bin/java), was "
                    + proxyJava);
        }
        if (aotTraining != null && fresh == null) {
            throw new IllegalArgumentException("--aot-training needs --fresh: a warmed-up run has nothing left to train");
        }
        if (kroxylicious && kroxyliciousClasspath == null) {
            throw new IllegalArgumentException("--kroxylicious needs the launcher's class path in -D"
                    + BenchMain.KROXYLICIOUS_CLASSPATH_PROPERTY + " (scripts/bench-proxy-cpu sets it)");
        }
        return new Options(baseline, rounds, kroxylicious ? kroxyliciousClasspath : null, profile, syscalls,
                Duration.ofSeconds(warmUpSeconds), Duration.ofSeconds(windowSeconds), workloads,
                Path.of("benchmarks", "target", "bench-logs"), owners, nodePerOwner, fresh, proxyJvmOptions, proxyJava,
                aotTraining);
    }

    void run() {
        String classpath = System.getProperty("java.class.path");
        // The proxies need only the jars: a JVM writing an AOT cache or CDS archive refuses class directories.
        String proxyClasspath = Arrays.stream(classpath.split(":")).filter(entry -> entry.endsWith(".jar"))
                .collect(Collectors.joining(":"));
        out.println("load average at start: " + MachineInfo.loadAverage());
        out.println("machine: " + MachineInfo.describe());
        out.println("brokers (owners): " + options.owners() + ", Leasehold presentation: "
                + (options.nodePerOwner() ? "node-per-owner" : "single-node")
                + (options.proxyJvmOptions().isEmpty() ? "" : ", current build's extra JVM options: "
                        + String.join(" ", options.proxyJvmOptions()))
                + ", current build's Java runtime: " + options.proxyJava());
        try (EtcdServer etcd = EtcdServer.start();
                KafkaCluster cluster = KafkaCluster.start(classpath, options.owners(), options.logDir());
                OwnershipSeeder seeder = new OwnershipSeeder(etcd.endpoint(), new KeySchema(KeySchema.DEFAULT_PREFIX))) {
            KafkaBackend backend = new KafkaBackend(cluster, seeder);
            backend.createTopic(TOPIC, PARTITIONS, options.owners() == 1 ? Placement.ONE_OWNER : Placement.SPREAD);
            List<String> bootstrap = cluster.nodes().stream().map(KafkaNode::address).toList();
            Function<List<String>, LaunchedProxy> current = currentStarter(proxyClasspath, etcd.endpoint(), bootstrap);
            List<String> cache = options.aotTraining() == null ? List.of()
                    : new AotCacheTraining(options.aotTraining(), options.workloads().get(0), TOPIC, BUFFER, out)
                            .train(current, options.logDir().resolve("current.aot"));
            Map<String, Supplier<LaunchedProxy>> starters = starters(proxyClasspath, etcd.endpoint(), bootstrap,
                    () -> current.apply(cache));
            if (options.fresh() != null) {
                measureFresh(String.join(",", bootstrap), cluster.nodes().stream().map(KafkaNode::pid).toList(),
                        starters);
            } else {
                Map<String, LaunchedProxy> proxies = new LinkedHashMap<>();
                try {
                    starters.forEach((name, starter) -> proxies.put(name, starter.get()));
                    measure(proxies);
                } finally {
                    proxies.values().forEach(LaunchedProxy::close);
                }
            }
        }
        out.println("load average at end: " + MachineInfo.loadAverage());
    }

    /**
     * How to start each proxy compared, by name: the baseline build (if given), the current build
     * ({@code current}), Kroxylicious.
     */
    private Map<String, Supplier<LaunchedProxy>> starters(String classpath, String etcdEndpoint,
            List<String> bootstrap, Supplier<LaunchedProxy> current) {
        Map<String, Supplier<LaunchedProxy>> starters = new LinkedHashMap<>();
        if (options.baselineJar() != null) {
            String baselineClasspath = Arrays.stream(classpath.split(":"))
                    .map(entry -> entry.contains("leasehold-proxy-") && entry.endsWith(".jar")
                            ? options.baselineJar().toAbsolutePath().toString() : entry)
                    .collect(Collectors.joining(":"));
            starters.put(BASELINE, () -> ProxyInstance.start(JavaCommand.currentJavaHome(), baselineClasspath,
                    etcdEndpoint, bootstrap, presentation(bootstrap.size()), options.logDir(), "cpu-baseline",
                    List.of()));
        }
        starters.put(CURRENT, current);
        if (options.kroxylicious() != null) {
            starters.put(KROXYLICIOUS, () -> KroxyliciousInstance.start(options.kroxylicious(), bootstrap,
                    KafkaCluster.FIRST_NODE_ID, bootstrap.size(), options.logDir()));
        }
        return starters;
    }

    /** Starts the current build on its runtime with its JVM options and the extra ones given. */
    private Function<List<String>, LaunchedProxy> currentStarter(String classpath, String etcdEndpoint,
            List<String> bootstrap) {
        List<String> currentOptions = new ArrayList<>(options.proxyJvmOptions());
        if (options.profile()) {
            currentOptions.addAll(flightRecording(options.logDir().toAbsolutePath().resolve("cpu-current.jfr"),
                    options.fresh()));
        }
        return extra -> {
            List<String> jvmOptions = new ArrayList<>(currentOptions);
            jvmOptions.addAll(extra);
            return ProxyInstance.start(options.proxyJava(), classpath, etcdEndpoint, bootstrap,
                    presentation(bootstrap.size()), options.logDir(), "cpu-current", jvmOptions);
        };
    }

    /**
     * The JVM flags that record a proxy with Java Flight Recorder into {@code file} and dump its perf
     * map at exit. For a fresh start ({@code fresh} not null) the recording samples Java code every
     * 2 ms, as the profile setting's 10–20 ms leaves too few samples of the first minute, and stops
     * after {@code fresh} from the JVM's start, so it is written out before the harness stops the
     * proxy: one dumped at exit was cut short by the stop. A warmed-up run keeps the profile setting
     * and is dumped at exit.
     */
    static List<String> flightRecording(Path file, Duration fresh) {
        String recording = "-XX:StartFlightRecording=name=cpu,settings=profile,filename=" + file
                + (fresh == null ? "" : ",jdk.ExecutionSample#period=2ms,duration=" + fresh.toSeconds() + "s");
        return List.of(recording, "-XX:+UnlockDiagnosticVMOptions",
                // Files a sample taken in compiled code under the inlined method it was in, not under
                // the nearest point the compiler kept debug information for.
                "-XX:+DebugNonSafepoints",
                // For perf: JIT-compiled methods' names in /tmp/perf-<pid>.map at exit.
                "-XX:+DumpPerfMapAtExit");
    }

    /**
     * Each proxy from a fresh start, under the short column names of the issue: L the current
     * build, Lb the baseline, K Kroxylicious; ratios L/K and L/Lb where both ran.
     */
    private void measureFresh(String brokerBootstrap, List<Long> brokerPids, Map<String, Supplier<LaunchedProxy>> starters) {
        Map<String, String> columns = Map.of(BASELINE, "Lb", CURRENT, "L", KROXYLICIOUS, "K");
        Map<String, Supplier<LaunchedProxy>> byColumn = new LinkedHashMap<>();
        starters.forEach((name, starter) -> byColumn.put(columns.get(name), starter));
        List<WindowedCpuTable.Ratio> ratios = new ArrayList<>();
        if (byColumn.containsKey("K")) {
            ratios.add(new WindowedCpuTable.Ratio("L", "K"));
        }
        if (byColumn.containsKey("Lb")) {
            ratios.add(new WindowedCpuTable.Ratio("L", "Lb"));
        }
        new FreshStartMeasurement(options.fresh(), options.rounds(), options.workloads().get(0), TOPIC, BUFFER, out)
                .run(brokerBootstrap, brokerPids, byColumn, ratios);
    }

    private Presentation presentation(int brokers) {
        return options.nodePerOwner() ? Presentation.nodePerOwner(KafkaCluster.FIRST_NODE_ID, brokers)
                : Presentation.singleNode();
    }

    private void measure(Map<String, LaunchedProxy> proxies) {
        List<ProducerWorkload> workloads = options.workloads();
        CompilerWarmUp compiler = new CompilerWarmUp(options.warmUp(), BenchOptions.QUIET_C2_SECONDS);
        ProducerLoad warmUp = new ProducerLoad(new Timing(Duration.ZERO, CompilerWarmUp.RUN_PER_WORKLOAD), BUFFER);
        proxies.forEach((name, proxy) -> out.println("warm-up " + name + ": " + compiler.untilSettled(proxy.pid(),
                () -> workloads.forEach(workload -> warmUp.run(proxy.bootstrap(), TOPIC, workload)))));
        ProducerLoad load = new ProducerLoad(new Timing(Duration.ofMillis(1000), options.window()), BUFFER);
        List<String> names = new ArrayList<>(proxies.keySet());
        Map<String, List<Double>> cpuPerGb = new LinkedHashMap<>();
        Map<String, List<Double>> throughput = new LinkedHashMap<>();
        Map<String, List<Double>> p50 = new LinkedHashMap<>();
        Map<String, List<Double>> p99 = new LinkedHashMap<>();
        for (int round = 1; round <= options.rounds(); round++) {
            for (ProducerWorkload workload : workloads) {
                for (int i = 0; i < names.size(); i++) {
                    String name = names.get((i + round) % names.size());
                    LaunchedProxy proxy = proxies.get(name);
                    ProcessStats stats = new ProcessStats(proxy.pid());
                    ProcessStats.Sample before = stats.sample();
                    ThreadCpu threadsBefore = ThreadCpu.read(proxy.pid());
                    SyscallCount syscalls = options.syscalls() ? SyscallCount.start(proxy.pid()) : null;
                    LoadResult result = load.run(proxy.bootstrap(), TOPIC, workload);
                    ProcessStats.Sample after = stats.sample();
                    double cpu = after.cpuSecondsSince(before);
                    double sys = after.systemSeconds() - before.systemSeconds();
                    String counted = (syscalls == null ? "" : "  " + syscalls.stopPerMegabyte(result.totalPayloadBytes()))
                            + "  " + ThreadCpu.top(ThreadCpu.read(proxy.pid()).since(threadsBefore), 4);
                    double perGb = cpu / (result.totalPayloadBytes() / 1e9);
                    String key = workload.label() + " " + name;
                    cpuPerGb.computeIfAbsent(key, k -> new ArrayList<>()).add(perGb);
                    throughput.computeIfAbsent(key, k -> new ArrayList<>()).add(result.megabytesPerSecond());
                    p50.computeIfAbsent(key, k -> new ArrayList<>()).add(result.latencyMillis(50));
                    p99.computeIfAbsent(key, k -> new ArrayList<>()).add(result.latencyMillis(99));
                    out.printf(Locale.ROOT, "round %d %-34s %-12s %7.1f MB/s  p50 %6.2f p99 %6.2f ms  cpu %5.2f s (sys %5.2f)"
                                    + "  %5.2f s/GB  errors %d%s%n",
                            round, workload.label(), name, result.megabytesPerSecond(), result.latencyMillis(50),
                            result.latencyMillis(99), cpu, sys, perGb, result.errors(), counted);
                }
            }
        }
        table("proxy CPU s/GB", names, workloads, cpuPerGb);
        table("MB/s", names, workloads, throughput);
        table("p50 ms", names, workloads, p50);
        table("p99 ms", names, workloads, p99);
    }

    /** A Markdown table of {@code figures}' median (min..max) per workload and path. */
    private void table(String figure, List<String> names, List<ProducerWorkload> workloads,
            Map<String, List<Double>> figures) {
        out.println();
        out.println("| " + figure + " | " + String.join(" | ", names) + " |");
        out.println("|---|" + "---|".repeat(names.size()));
        for (ProducerWorkload workload : workloads) {
            StringBuilder row = new StringBuilder("| " + workload.label() + " |");
            for (String name : names) {
                row.append(' ').append(Spread.of(figures.get(workload.label() + " " + name)).format("%.2f")).append(" |");
            }
            out.println(row);
        }
    }
}
