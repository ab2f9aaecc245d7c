package io.leasehold.bench;

import io.leasehold.bench.cluster.KafkaCluster;
import io.leasehold.bench.cluster.KafkaNode;
import io.leasehold.bench.cluster.KroxyliciousInstance;
import io.leasehold.bench.cluster.LaunchedProxy;
import io.leasehold.bench.cluster.OwnershipSeeder;
import io.leasehold.bench.cluster.Presentation;
import io.leasehold.bench.cluster.ProxyInstance;
import io.leasehold.bench.micro.JmhSuite;
import io.leasehold.bench.process.ChildProcessStopper;
import io.leasehold.bench.process.ProcessStats;
import io.leasehold.bench.process.ThreadCpu;
import io.leasehold.bench.profile.HotMethods;
import io.leasehold.bench.report.Failures;
import io.leasehold.bench.report.Target;
import io.leasehold.bench.suite.Backend;
import io.leasehold.bench.suite.ClientPath;
import io.leasehold.bench.suite.KafkaBackend;
import io.leasehold.bench.suite.Plan;
import io.leasehold.bench.suite.ReferenceBackend;
import io.leasehold.bench.suite.SuiteRunner;
import io.leasehold.routing.keys.KeySchema;
import io.leasehold.routing.testing.EtcdServer;
import io.leasehold.testing.JavaCommand;
import io.leasehold.testing.LocalCluster;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The benchmark command: starts a real etcd, then per backend (a three-broker Apache Kafka
 * cluster; three reference brokers) the backend and its proxies (against Kafka: Leasehold
 * single-node, Leasehold node-per-owner and Kroxylicious; against the reference brokers:
 * Leasehold single-node), runs the plan on every path, and finally the JMH microbenchmarks;
 * writes the report and prints it.
 */
public final class BenchMain {

    /** The system property scripts/bench sets to the Kroxylicious launcher's class path. */
    static final String KROXYLICIOUS_CLASSPATH_PROPERTY = "bench.kroxylicious.classpath";
    /** Brokers of the Kafka backend. */
    private static final int KAFKA_NODES = 3;

    private final BenchOptions options;
    private final PrintStream out;
    private final Optional<String> kroxyliciousClasspath;
    /** Every child JVM (Kafka, reference brokers, proxy) runs from this benchmark's own class path. */
    private final String classpath = System.getProperty("java.class.path");
    private static final String RECORDING_NAME = "bench";

    BenchMain(BenchOptions options, PrintStream out, Optional<String> kroxyliciousClasspath) {
        this.options = options;
        this.out = out;
        this.kroxyliciousClasspath = kroxyliciousClasspath;
    }

    public static void main(String[] args) {
        // Ctrl-C or SIGTERM skips the close() of the brokers, etcd and proxies below; this stops them.
        ChildProcessStopper.stopChildrenWhenThisJvmExits();
        BenchOptions options;
        try {
            options = BenchOptions.parse(args);
            // A --case that matches nothing is a mistake to report now, not after starting a cluster.
            options.tuning().requireCaseIn(Plans.only(Plans.kafka(options.quick()), options.only()));
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.println(BenchOptions.USAGE);
            System.exit(2);
            return;
        }
        String report = new BenchMain(options, System.out,
                Optional.ofNullable(System.getProperty(KROXYLICIOUS_CLASSPATH_PROPERTY))).run(String.join(" ", args));
        System.out.println();
        System.out.println(report);
        System.exit(0);
    }

    String run(String arguments) {
        String started = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        String loadAtStart = MachineInfo.loadAverage();
        List<SuiteResult> suites = new ArrayList<>();
        if (options.load()) {
            for (String backend : options.backends()) {
                // A fresh etcd per suite: the Kafka suite's seeded, lease-less ownership keys
                // (every partition owned by broker 1) would otherwise stay behind and misroute
                // the reference brokers, whose broker 1 is a different broker.
                try (EtcdServer etcd = EtcdServer.start()) {
                    suites.add(backend.equals("kafka") ? runKafka(etcd.endpoint()) : runReference(etcd));
                }
            }
        }
        String jmhTable = null;
        String jmhFailure = null;
        if (options.jmh()) {
            try {
                jmhTable = JmhSuite.table(new JmhSuite(options.quick()).run());
            } catch (RuntimeException e) {
                jmhFailure = e.toString();
            }
        }
        RunContext context = new RunContext(("scripts/bench " + arguments).trim(),
                options.quick() ? "quick smoke run: not a measurement" : "full run",
                started, Instant.now().truncatedTo(ChronoUnit.SECONDS).toString(), MachineInfo.describe(),
                loadAtStart, MachineInfo.loadAverage());
        return new Report(options.outDir()).write(context, suites, jmhTable, jmhFailure);
    }

    private SuiteResult runKafka(String etcdEndpoint) {
        Plan plan = options.tuning().apply(Plans.only(Plans.kafka(options.quick()), options.only()));
        out.println("[kafka] starting " + KAFKA_NODES + " Kafka nodes (KRaft, one JVM each)");
        try (KafkaCluster cluster = KafkaCluster.start(classpath, KAFKA_NODES, options.logDir());
                OwnershipSeeder seeder = new OwnershipSeeder(etcdEndpoint, new KeySchema(KeySchema.DEFAULT_PREFIX))) {
            Backend backend = new KafkaBackend(cluster, seeder);
            List<String> bootstrap = cluster.nodes().stream().map(KafkaNode::address).toList();
            return runWithProxies(backend, plan, etcdEndpoint, bootstrap,
                    List.of(Target.LEASEHOLD, Target.LEASEHOLD_NODES, Target.KROXYLICIOUS));
        } catch (RuntimeException e) {
            out.println("[kafka] suite stopped: " + Failures.describe(e));
            return SuiteResult.failed("kafka", plan, summary(Failures.describe(e)));
        }
    }

    private SuiteResult runReference(EtcdServer etcd) {
        Plan plan = options.tuning().apply(Plans.only(Plans.reference(options.quick()), options.only()));
        out.println("[reference] starting 3 reference brokers");
        try (LocalCluster cluster = LocalCluster.builder("bench-reference").brokers(3).etcd(etcd)
                .brokerCommand(new JavaCommand(classpath, List.of("-Xmx512m", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")))
                .logDir(options.logDir().toAbsolutePath()).start()) {
            return runWithProxies(new ReferenceBackend(cluster), plan, etcd.endpoint(),
                    List.of(cluster.bootstrapServers().split(",")), List.of(Target.LEASEHOLD));
        } catch (RuntimeException e) {
            out.println("[reference] suite stopped: " + Failures.describe(e));
            return SuiteResult.failed("reference", plan, summary(Failures.describe(e)));
        }
    }

    /** Starts the proxies of {@code targets} (a proxy that fails to start becomes an unavailable path), runs the plan, stops them. */
    private SuiteResult runWithProxies(Backend backend, Plan plan, String etcdEndpoint, List<String> bootstrap,
            List<Target> targets) {
        List<ClientPath> paths = new ArrayList<>(List.of(ClientPath.direct(backend.directBootstrap())));
        List<LaunchedProxy> started = new ArrayList<>();
        try {
            for (Target target : targets) {
                out.println("[" + backend.name() + "] starting " + target.label());
                try {
                    LaunchedProxy proxy = startProxy(backend.name(), target, etcdEndpoint, bootstrap);
                    started.add(proxy);
                    paths.add(ClientPath.through(target, proxy));
                } catch (RuntimeException e) {
                    String why = target.label() + " did not start: " + summary(e.getMessage());
                    out.println("[" + backend.name() + "] " + why);
                    paths.add(ClientPath.unavailable(target, why));
                }
            }
            Map<Target, ThreadCpu> atStart = new EnumMap<>(Target.class);
            for (ClientPath path : paths) {
                path.proxy().ifPresent(p -> atStart.put(path.target(), ThreadCpu.read(p.pid())));
            }
            SuiteRunner.Outcome outcome = new SuiteRunner(plan, options.warmUp(), out).run(backend, paths);
            List<ProxySummary> summaries = new ArrayList<>();
            for (ClientPath path : paths) {
                path.proxy().ifPresent(p -> summaries.add(summarise(backend.name(), path.target(), p,
                        atStart.get(path.target()))));
            }
            return new SuiteResult(backend.name(), plan, outcome.comparisons(), summaries, outcome.stall(),
                    outcome.failure());
        } finally {
            started.forEach(LaunchedProxy::close);
        }
    }

    private LaunchedProxy startProxy(String backend, Target target, String etcdEndpoint, List<String> bootstrap) {
        String name = "proxy-" + backend + "-" + target.label();
        return switch (target) {
            case LEASEHOLD -> ProxyInstance.start(JavaCommand.currentJavaHome(), classpath, etcdEndpoint, bootstrap,
                    Presentation.singleNode(), options.logDir(), name, recordingOptions());
            case LEASEHOLD_NODES -> ProxyInstance.start(JavaCommand.currentJavaHome(), classpath, etcdEndpoint,
                    bootstrap, Presentation.nodePerOwner(KafkaCluster.FIRST_NODE_ID, bootstrap.size()), options.logDir(), name,
                    recordingOptions());
            case KROXYLICIOUS -> KroxyliciousInstance.start(kroxyliciousClasspath.orElseThrow(
                    () -> new IllegalStateException("the Kroxylicious launcher is not built (scripts/bench builds "
                            + "benchmarks/kroxylicious and passes -D" + KROXYLICIOUS_CLASSPATH_PROPERTY + ")")),
                    bootstrap, KafkaCluster.FIRST_NODE_ID, bootstrap.size(), options.logDir());
            case DIRECT -> throw new IllegalArgumentException("direct is not a proxy");
        };
    }

    private ProxySummary summarise(String backend, Target target, LaunchedProxy proxy, ThreadCpu atStart) {
        if (!proxy.isAlive()) {
            return new ProxySummary(target, 0, null, null);
        }
        long peakRss = new ProcessStats(proxy.pid()).sample().peakRssBytes();
        String threads = ThreadCpu.table(ThreadCpu.read(proxy.pid()).since(atStart), 12);
        // Only the Leasehold proxies run with a flight recording.
        String profile = options.profile() && target != Target.KROXYLICIOUS
                ? profileSummary(proxy, options.logDir().toAbsolutePath()
                        .resolve("proxy-" + backend + "-" + target.label() + ".jfr"))
                : null;
        return new ProxySummary(target, peakRss, threads, profile);
    }

    private List<String> recordingOptions() {
        if (!options.profile()) {
            return List.of();
        }
        return List.of("-XX:StartFlightRecording=name=" + RECORDING_NAME + ",settings=profile");
    }

    /** The proxy's hot methods from its flight recording, dumped while it still runs. */
    private static String profileSummary(LaunchedProxy proxy, Path recording) {
        try {
            proxy.dumpFlightRecording(RECORDING_NAME, recording);
        } catch (RuntimeException e) {
            return "No profile: " + e.getMessage() + "\n";
        }
        HotMethods hot = HotMethods.read(recording);
        return hot.samples() + " execution samples of the proxy over the whole suite (Java Flight Recorder, "
                + "profile settings; recording " + recording + ").\n\n" + hot.methodTable(25) + "\n"
                + hot.packageTable(15);
    }

    /** The exception's first line and the last line of the log it quotes, which usually names the cause. */
    private static String summary(String message) {
        if (message == null) {
            return "(no message)";
        }
        List<String> lines = message.lines().filter(l -> !l.isBlank()).toList();
        return lines.size() == 1 ? lines.get(0) : lines.get(0) + " ... " + lines.get(lines.size() - 1).trim();
    }
}
