package io.leasehold.proxy.faults;

import static org.awaitility.Awaitility.await;

import io.leasehold.audit.AuditVerdict;
import io.leasehold.audit.AuditedWorkload;
import io.leasehold.audit.JournalEntry;
import io.leasehold.audit.ProduceJournal;
import io.leasehold.audit.WorkloadResult;
import io.leasehold.audit.WorkloadSpec;
import io.leasehold.testing.ClusterAudit;
import io.leasehold.testing.LocalCluster;
import io.leasehold.testing.ProxyProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * The audited workload of one fault scenario: idempotent producers, every one of them given both
 * proxies as bootstrap (half list proxy 1 first, half proxy 2), writing every partition of the
 * scenario's own topic while the scenario injects its fault; then the offset auditor over what
 * every running broker and proxy serves.
 */
final class AuditedRun implements AutoCloseable {

    static final int PARTITIONS = 6;
    static final int PRODUCERS = 4;
    private static final Duration PROGRESS_TIMEOUT = Duration.ofSeconds(45);

    private final LocalCluster cluster;
    private final String topic;
    private final ProduceJournal journal = new ProduceJournal();
    private final AuditedWorkload workload;
    private final long startedNanos = System.nanoTime();

    private AuditedRun(LocalCluster cluster, String topic, WorkloadSpec spec) {
        this.cluster = cluster;
        this.topic = topic;
        this.workload = new AuditedWorkload(spec, journal);
    }

    /** Creates {@code topic} and starts producing to it through the running proxies. */
    static AuditedRun start(LocalCluster cluster, String topic) {
        cluster.createTopic(topic, PARTITIONS);
        List<String> proxies = cluster.proxies().stream().filter(ProxyProcess::isAlive).map(ProxyProcess::address)
                .toList();
        String forward = String.join(",", proxies);
        List<String> reversed = new ArrayList<>(proxies);
        Collections.reverse(reversed);
        String backward = String.join(",", reversed);
        WorkloadSpec spec = WorkloadSpec.builder(topic, List.of(forward, backward))
                .producerIdPrefix(topic + "-p")
                .producers(PRODUCERS)
                .idempotence(true)
                .partitions(IntStream.range(0, PARTITIONS).boxed().toList())
                .recordsPerProducer(100_000)
                .recordsPerSecond(80)
                .maxDuration(Duration.ofSeconds(90))
                .deliveryTimeout(Duration.ofSeconds(25))
                .producerOverride(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 3_000)
                .producerOverride(ProducerConfig.METADATA_MAX_AGE_CONFIG, 1_000)
                .producerOverride(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500)
                .producerOverride("metadata.recovery.rebootstrap.trigger.ms", 5_000)
                .build();
        AuditedRun run = new AuditedRun(cluster, topic, spec);
        run.workload.start();
        return run;
    }

    String topic() {
        return topic;
    }

    /** Waits until the producers got {@code more} further acknowledgements: progress, not a sleep, moves a scenario on. */
    void awaitMoreAcks(long more) {
        long target = workload.ackedSoFar() + more;
        await().atMost(PROGRESS_TIMEOUT).pollInterval(Duration.ofMillis(50))
                .until(() -> workload.ackedSoFar() >= target);
    }

    long ackedSoFar() {
        return workload.ackedSoFar();
    }

    /** Acknowledged records per producer id, from the journal. */
    Map<String, Long> ackedByProducer() {
        return journal.entries().stream().filter(JournalEntry::acked)
                .collect(Collectors.groupingBy(entry -> entry.identity().producerId(), TreeMap::new, Collectors.counting()));
    }

    /** Stops sending, waits for every outstanding send's outcome, and audits the topic. */
    ScenarioResult finish(String scenario, String measured) {
        workload.stop();
        WorkloadResult result = workload.awaitCompletion(Duration.ofSeconds(60));
        AuditVerdict verdict = new ClusterAudit(cluster, Duration.ofSeconds(30)).audit(journal, false);
        System.out.println(scenario + ": " + result + System.lineSeparator() + verdict.report());
        return new ScenarioResult(scenario, result, verdict, Duration.ofNanos(System.nanoTime() - startedNanos), measured);
    }

    @Override
    public void close() {
        workload.close();
    }
}
