package io.leasehold.testing;

import io.leasehold.audit.AuditVerdict;
import io.leasehold.audit.e2e.BrokerChurnScenario;
import io.leasehold.audit.AuditedWorkload;
import io.leasehold.audit.GroupReadCheck;
import io.leasehold.audit.GroupReadResult;
import io.leasehold.audit.KcatProducer;
import io.leasehold.audit.OffsetAuditor;
import io.leasehold.audit.ProduceJournal;
import io.leasehold.audit.TopicReader;
import io.leasehold.audit.WorkloadResult;
import io.leasehold.audit.WorkloadSpec;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * The local demo behind {@code scripts/demo}: etcd, three reference brokers and two proxies as
 * separate processes; audited Java producers and kcat producers writing the same partitions
 * through both proxies at once, a consumer group reading through the proxies, and finally the
 * offset auditor reading every partition back through each proxy and each broker. Exits 0 only
 * when the verdict is clean and the group read every confirmed record.
 *
 * <p>Flags: {@code --proxy-classpath CP} (the proxy's classpath; without it, the demo runs
 * against the brokers directly), {@code --log-dir DIR}, {@code --pid-file FILE} (child pids for
 * the calling script's cleanup), {@code --records N} per Java producer, {@code --compare}: the
 * bug and the fix side by side (see {@link #compare()}).
 */
public final class LocalDemo {

    private static final String TOPIC = "demo-orders";
    private static final int PARTITIONS = 6;
    private static final int BROKERS = 3;
    private static final int PROXIES = 2;

    private final DemoOptions options;
    private final PrintStream out;

    LocalDemo(DemoOptions options, PrintStream out) {
        this.options = options;
        this.out = out;
    }

    /** Runs the demo; exit code 0 = clean verdict, 1 = problems found, 2 = bad flags. */
    public static void main(String[] args) {
        DemoOptions options;
        try {
            options = DemoOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("demo: " + e.getMessage());
            System.err.println(DemoOptions.USAGE);
            System.exit(2);
            return;
        }
        System.exit(new LocalDemo(options, System.out).run() ? 0 : 1);
    }

    boolean run() {
        if (options.compare()) {
            return compare();
        }
        LocalCluster.Builder builder = LocalCluster.builder("demo").brokers(BROKERS).leaseTtl(Duration.ofSeconds(5))
                .logDir(options.logDir());
        options.proxyClasspath().ifPresent(cp -> builder.proxyCommand(new JavaCommand(cp, JavaCommand.DEFAULT_JVM_OPTIONS)));
        out.println("demo: starting etcd and " + BROKERS + " reference brokers (logs in " + options.logDir() + ")");
        try (LocalCluster cluster = builder.start()) {
            recordPids();
            out.println("demo: etcd at " + cluster.etcdEndpoint() + ", brokers at " + cluster.bootstrapServers());
            List<String> entryPoints = entryPoints(cluster);
            recordPids();
            createTopic(entryPoints.get(0));
            return produceConsumeAndAudit(cluster, entryPoints);
        }
    }

    /**
     * The seed's situation and the fix, with one workload ({@link BrokerChurnScenario}: producers
     * writing six partitions while broker 3 leaves gracefully and comes back, so each partition's
     * traffic moves between brokers as in any rolling restart). First the brokers run
     * {@code --ownership none} and clients reach them directly: the auditor finds overlapping
     * offsets. Then the brokers hold leases and clients go through two Leasehold proxies: none.
     * True only when the first run overlaps and the second is clean.
     */
    private boolean compare() {
        out.println("demo --compare 1/2: the bug. 3 brokers with --ownership none, producers on every broker, "
                + "broker 3 leaves and returns mid-run");
        AuditVerdict before = churn("compare-ownership-none", "none", false);
        out.println("demo --compare 1/2: overlapping offsets " + before.overlaps() + " (records that share an offset with "
                + "another record), acknowledged records missing " + before.ackedMissing());
        out.println("demo --compare 2/2: the fix. 3 brokers holding etcd leases, producers through 2 Leasehold proxies, "
                + "the same churn");
        AuditVerdict after = churn("compare-leases", "lease", true);
        out.println("demo --compare 2/2: overlapping offsets " + after.overlaps() + ", acknowledged records missing "
                + after.ackedMissing());
        boolean shown = before.overlaps() > 0 && after.overlaps() == 0 && after.clean();
        out.println("demo --compare: without ownership " + before.overlaps() + " overlapping offsets, with Leasehold "
                + after.overlaps() + (shown ? " — that is why Leasehold exists" : " — NOT the expected contrast"));
        return shown;
    }

    private AuditVerdict churn(String name, String ownership, boolean throughProxies) {
        LocalCluster.Builder builder = LocalCluster.builder(name).brokers(BROKERS).leaseTtl(Duration.ofSeconds(5))
                .ownership(ownership).logDir(options.logDir().resolve(name));
        options.proxyClasspath().ifPresent(cp -> builder.proxyCommand(new JavaCommand(cp, JavaCommand.DEFAULT_JVM_OPTIONS)));
        try (LocalCluster cluster = builder.start()) {
            recordPids();
            List<String> entryPoints = throughProxies ? entryPoints(cluster)
                    : cluster.brokers().stream().map(BrokerProcess::address).toList();
            recordPids();
            BrokerChurnScenario.Outcome outcome = new BrokerChurnScenario(cluster,
                    options.logDir().resolve(name + "-journal.jsonl"), entryPoints).run();
            out.println("demo: " + outcome.workload());
            return new ClusterAudit(cluster, Duration.ofSeconds(60)).audit(outcome.journal(), true);
        }
    }

    private List<String> entryPoints(LocalCluster cluster) {
        if (options.proxyClasspath().isEmpty()) {
            out.println("demo: no --proxy-classpath given: clients talk to the brokers directly (no proxies)");
            return cluster.brokers().stream().map(BrokerProcess::address).toList();
        }
        List<String> proxies = new ArrayList<>();
        for (int i = 0; i < PROXIES; i++) {
            ProxyProcess proxy = cluster.startProxy();
            proxies.add(proxy.address());
            out.println("demo: proxy " + proxy.index() + " at " + proxy.address() + " (admin " + proxy.adminUrl() + ")");
        }
        return proxies;
    }

    private void createTopic(String bootstrap) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get();
            out.println("demo: created topic " + TOPIC + " with " + PARTITIONS + " partitions through " + bootstrap);
        } catch (Exception e) {
            throw new IllegalStateException("could not create topic " + TOPIC + " through " + bootstrap, e);
        }
    }

    private boolean produceConsumeAndAudit(LocalCluster cluster, List<String> entryPoints) {
        ProduceJournal journal = new ProduceJournal();
        List<Integer> allPartitions = IntStream.range(0, PARTITIONS).boxed().toList();
        WorkloadSpec idempotent = WorkloadSpec.builder(TOPIC, entryPoints).producerIdPrefix("java-idem-").producers(2)
                .partitions(allPartitions).recordsPerProducer(options.records()).maxDuration(Duration.ofSeconds(60)).build();
        WorkloadSpec plain = WorkloadSpec.builder(TOPIC, entryPoints).producerIdPrefix("java-acks1-").producers(2)
                .partitions(allPartitions).acks("1").idempotence(false).recordsPerProducer(options.records())
                .maxDuration(Duration.ofSeconds(60)).build();
        out.println("demo: producing through " + entryPoints + ": 2 idempotent Java producers, 2 acks=1 Java producers and "
                + entryPoints.size() + " kcat producers, all writing partition 0 among others");
        List<CompletableFuture<Integer>> kcats = new ArrayList<>();
        for (int i = 0; i < entryPoints.size(); i++) {
            KcatProducer kcat = new KcatProducer("kcat", entryPoints.get(i), "kcat-" + i, TOPIC, 0,
                    Math.max(1, options.records() / 4), 64, Duration.ofSeconds(60), List.of());
            Path log = options.logDir().resolve("kcat-" + i + ".log");
            kcats.add(CompletableFuture.supplyAsync(() -> kcat.run(journal, log)));
        }
        WorkloadResult idempotentResult;
        WorkloadResult plainResult;
        try (AuditedWorkload first = new AuditedWorkload(idempotent, journal).start();
             AuditedWorkload second = new AuditedWorkload(plain, journal).start()) {
            idempotentResult = first.awaitCompletion(Duration.ofSeconds(120));
            plainResult = second.awaitCompletion(Duration.ofSeconds(120));
        }
        List<Integer> kcatExits = kcats.stream().map(CompletableFuture::join).toList();
        out.println("demo: idempotent producers: " + idempotentResult);
        out.println("demo: acks=1 producers:     " + plainResult);
        out.println("demo: kcat exit codes:      " + kcatExits + " (logs in " + options.logDir() + ")");

        GroupReadResult group = new GroupReadCheck(entryPoints, "demo-readers", TOPIC, 2, Duration.ofSeconds(60))
                .run(journal.entries());
        out.println("demo: consumer group through " + entryPoints + ": " + group);

        List<String> passes = new ArrayList<>(entryPoints);
        cluster.brokers().forEach(broker -> {
            if (!passes.contains(broker.address())) {
                passes.add(broker.address());
            }
        });
        out.println("demo: auditing: reading every partition back through " + passes);
        // Duplicates are tolerated only because acks=1 producers without idempotence may retry after an unknown outcome.
        AuditVerdict verdict = new OffsetAuditor(true).readAndAudit(new TopicReader(Duration.ofSeconds(60)), passes,
                journal.entries());
        out.print(verdict.report());
        boolean clean = verdict.clean() && group.complete() && kcatExits.stream().allMatch(code -> code == 0);
        out.println("demo: verdict " + (clean ? "CLEAN" : "NOT CLEAN") + " — overlapping offsets " + verdict.overlaps()
                + ", acknowledged records missing " + verdict.ackedMissing() + ", consumer group missing " + group.missing());
        return clean;
    }

    private void recordPids() {
        options.pidFile().ifPresent(file -> {
            String pids = ProcessHandle.current().descendants().map(handle -> Long.toString(handle.pid()))
                    .collect(Collectors.joining(System.lineSeparator()));
            try {
                Files.writeString(file, pids + System.lineSeparator(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException("could not write pid file " + file, e);
            }
        });
    }
}
