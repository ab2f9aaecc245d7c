package io.leasehold.audit.e2e;

import static org.awaitility.Awaitility.await;

import io.leasehold.audit.AuditCli;
import io.leasehold.audit.AuditedWorkload;
import io.leasehold.audit.JournalFile;
import io.leasehold.audit.ProduceJournal;
import io.leasehold.audit.WorkloadResult;
import io.leasehold.audit.WorkloadSpec;
import io.leasehold.testing.BrokerProcess;
import io.leasehold.testing.LocalCluster;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * The workload both ownership modes are put through: one producer bootstrapped to each of three
 * brokers, all writing the same six partitions, while broker 3 leaves gracefully and comes back.
 * Each phase lasts until the producers made progress in it; the workload stops after the last.
 * Clients follow Metadata, which names the partition's owner, or, while nobody owns it, a live
 * broker picked from the partition alone; so when broker 3 leaves, some partitions' traffic
 * moves from broker 1 to broker 2 or back, and when it returns it moves again. That is the
 * routine routing change that, without ownership, lets a broker keep counting from an offset
 * another broker has since used.
 */
public final class BrokerChurnScenario {

    public static final String TOPIC = "churn";
    static final int PARTITIONS = 6;
    private static final long PHASE_ACKS = 600;

    private final LocalCluster cluster;
    private final Path journalFile;
    private final List<String> entryPoints;

    /** What happened: counts, the journal and Metadata's leaders at each phase. */
    public record Outcome(WorkloadResult workload, ProduceJournal journal, Map<Integer, Integer> leadersBefore,
                   Map<Integer, Integer> leadersWithoutBroker3, Map<Integer, Integer> leadersAfter) {

        /** Partitions whose leader moved between brokers 1 and 2 while broker 3 was away. */
        long partitionsMovedBetweenSurvivors() {
            return leadersBefore.keySet().stream().filter(p -> leadersBefore.get(p) != 3
                    && leadersWithoutBroker3.get(p) != 3 && !leadersBefore.get(p).equals(leadersWithoutBroker3.get(p))).count();
        }
    }

    /** The workload with one producer bootstrapped to each broker. */
    BrokerChurnScenario(LocalCluster cluster, Path journalFile) {
        this(cluster, journalFile, cluster.brokers().stream().map(BrokerProcess::address).toList());
    }

    /** The workload with one producer bootstrapped to each of {@code entryPoints} (brokers or proxies), three at least. */
    public BrokerChurnScenario(LocalCluster cluster, Path journalFile, List<String> entryPoints) {
        this.cluster = cluster;
        this.journalFile = journalFile;
        this.entryPoints = List.copyOf(entryPoints);
    }

    public Outcome run() {
        cluster.createTopic(TOPIC, PARTITIONS);
        List<String> brokers = cluster.brokers().stream().map(BrokerProcess::address).toList();
        Map<Integer, Integer> before = cluster.leaders(brokers.get(0), TOPIC);
        WorkloadSpec spec = WorkloadSpec.builder(TOPIC, entryPoints)
                .producers(3)
                .idempotence(true)
                .partitions(IntStream.range(0, PARTITIONS).boxed().toList())
                .recordsPerProducer(20_000)
                .recordsPerSecond(250)
                .maxDuration(Duration.ofSeconds(60))
                .deliveryTimeout(Duration.ofSeconds(15))
                .producerOverride(ProducerConfig.METADATA_MAX_AGE_CONFIG, 250)
                .producerOverride(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000)
                .build();
        try (JournalFile file = JournalFile.append(journalFile)) {
            ProduceJournal journal = new ProduceJournal(file);
            try (AuditedWorkload workload = new AuditedWorkload(spec, journal)) {
                workload.start();
                awaitMoreAcks(workload, PHASE_ACKS);
                cluster.broker(3).terminate(Duration.ofSeconds(20));
                Map<Integer, Integer> without = awaitLeadersWithoutBroker3(brokers.get(0));
                awaitMoreAcks(workload, PHASE_ACKS);
                cluster.startBroker(3);
                Map<Integer, Integer> after = cluster.leaders(brokers.get(0), TOPIC);
                awaitMoreAcks(workload, PHASE_ACKS);
                workload.stop();
                WorkloadResult result = workload.awaitCompletion(Duration.ofSeconds(40));
                return new Outcome(result, journal, before, without, after);
            } finally {
                file.flush();
            }
        }
    }

    /** Metadata once broker 3's registration is gone from etcd (at once after a graceful exit, at worst after the TTL). */
    private Map<Integer, Integer> awaitLeadersWithoutBroker3(String bootstrap) {
        return await().atMost(Duration.ofSeconds(20)).until(() -> cluster.leaders(bootstrap, TOPIC),
                leaders -> !leaders.containsValue(3));
    }

    /** Runs the auditor's command line on the journal file, reading through {@code bootstrap}; returns its exit code. */
    static int auditWithCli(Path journal, String bootstrap, String... moreFlags) {
        PrintStream print = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        List<String> args = new ArrayList<>(List.of("--journal", journal.toString(), "--bootstrap", bootstrap, "--timeout", "30s"));
        args.addAll(List.of(moreFlags));
        return new AuditCli(print, print).run(args.toArray(String[]::new));
    }

    /** Lets the producers make progress in the current phase (progress, not a fixed sleep, moves the scenario on). */
    private static void awaitMoreAcks(AuditedWorkload workload, long more) {
        long target = workload.ackedSoFar() + more;
        await().atMost(Duration.ofSeconds(30)).until(() -> workload.ackedSoFar() >= target);
    }
}
