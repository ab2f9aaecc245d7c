package io.leasehold.bench;

import io.leasehold.bench.cluster.KafkaBroker;
import io.leasehold.bench.cluster.OwnershipSeeder;
import io.leasehold.bench.cluster.ProxyInstance;
import io.leasehold.bench.micro.JmhSuite;
import io.leasehold.bench.process.ProcessStats;
import io.leasehold.bench.process.ThreadCpu;
import io.leasehold.bench.profile.HotMethods;
import io.leasehold.bench.report.Failures;
import io.leasehold.bench.suite.Backend;
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
import java.util.List;
import java.util.Optional;

/**
 * The benchmark command: starts a real etcd, then per backend (a stock Kafka broker; three
 * reference brokers) the backend and one proxy, runs the plan direct and through the proxy, and
 * finally the JMH microbenchmarks; writes the report and prints it.
 */
public final class BenchMain {

    private final BenchOptions options;
    private final PrintStream out;
    /** Every child JVM (Kafka, reference brokers, proxy) runs from this benchmark's own class path. */
    private final String classpath = System.getProperty("java.class.path");
    private static final String RECORDING_NAME = "bench";

    BenchMain(BenchOptions options, PrintStream out) {
        this.options = options;
        this.out = out;
    }

    public static void main(String[] args) {
        BenchOptions options;
        try {
            options = BenchOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.println(BenchOptions.USAGE);
            System.exit(2);
            return;
        }
        String report = new BenchMain(options, System.out).run(String.join(" ", args));
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
        Plan plan = Plans.only(Plans.kafka(options.quick()), options.only());
        out.println("[kafka] starting a Kafka broker (KRaft, own JVM)");
        try (KafkaBroker broker = KafkaBroker.start(classpath, options.logDir());
                OwnershipSeeder seeder = new OwnershipSeeder(etcdEndpoint, new KeySchema(KeySchema.DEFAULT_PREFIX))) {
            Backend backend = new KafkaBackend(broker, seeder);
            return runWithProxy(backend, plan, etcdEndpoint, List.of(broker.bootstrap()));
        } catch (RuntimeException e) {
            out.println("[kafka] suite stopped: " + Failures.describe(e));
            return SuiteResult.failed("kafka", plan, List.of(), summary(Failures.describe(e)));
        }
    }

    private SuiteResult runReference(EtcdServer etcd) {
        Plan plan = Plans.only(Plans.reference(options.quick()), options.only());
        out.println("[reference] starting 3 reference brokers");
        try (LocalCluster cluster = LocalCluster.builder("bench-reference").brokers(3).etcd(etcd)
                .brokerCommand(new JavaCommand(classpath, List.of("-Xmx512m", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")))
                .logDir(options.logDir().toAbsolutePath()).start()) {
            return runWithProxy(new ReferenceBackend(cluster), plan, etcd.endpoint(),
                    List.of(cluster.bootstrapServers().split(",")));
        } catch (RuntimeException e) {
            out.println("[reference] suite stopped: " + Failures.describe(e));
            return SuiteResult.failed("reference", plan, List.of(), summary(Failures.describe(e)));
        }
    }

    private SuiteResult runWithProxy(Backend backend, Plan plan, String etcdEndpoint, List<String> bootstrap) {
        out.println("[" + backend.name() + "] starting the proxy");
        Path recording = options.logDir().toAbsolutePath().resolve("proxy-" + backend.name() + ".jfr");
        ProxyInstance proxy;
        try {
            proxy = ProxyInstance.start(classpath, etcdEndpoint, bootstrap, options.logDir(),
                    "proxy-" + backend.name(), recordingOptions(recording));
        } catch (RuntimeException e) {
            String why = "the proxy did not start: " + summary(e.getMessage());
            out.println("[" + backend.name() + "] " + e.getMessage());
            out.println("[" + backend.name() + "] measuring direct only");
            SuiteRunner.Outcome direct = new SuiteRunner(plan, out).run(backend, Optional.empty(), why);
            String failure = direct.failure() == null ? why : why + "; then " + direct.failure();
            return new SuiteResult(backend.name(), plan, direct.comparisons(), 0, failure, null, null);
        }
        SuiteRunner.Outcome outcome;
        long peakRss;
        String profile = null;
        String threads = null;
        try (proxy) {
            ThreadCpu atStart = ThreadCpu.read(proxy.pid());
            outcome = new SuiteRunner(plan, out).run(backend, Optional.of(proxy), null);
            peakRss = proxy.isAlive() ? new ProcessStats(proxy.pid()).sample().peakRssBytes() : 0;
            if (proxy.isAlive()) {
                threads = ThreadCpu.table(ThreadCpu.read(proxy.pid()).since(atStart), 12);
            }
            if (options.profile()) {
                profile = profileSummary(proxy, recording);
            }
        }
        return new SuiteResult(backend.name(), plan, outcome.comparisons(), peakRss, outcome.failure(), threads,
                profile);
    }

    private List<String> recordingOptions(Path recording) {
        if (!options.profile()) {
            return List.of();
        }
        return List.of("-XX:StartFlightRecording=name=" + RECORDING_NAME + ",settings=profile");
    }

    /** The proxy's hot methods from its flight recording, dumped while it still runs. */
    private static String profileSummary(ProxyInstance proxy, Path recording) {
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
