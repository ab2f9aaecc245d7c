package io.leasehold.audit.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.leasehold.audit.AuditVerdict;
import io.leasehold.audit.AuditedWorkload;
import io.leasehold.audit.ProduceJournal;
import io.leasehold.audit.WorkloadResult;
import io.leasehold.audit.WorkloadSpec;
import io.leasehold.testing.BrokerProcess;
import io.leasehold.testing.ClusterAudit;
import io.leasehold.testing.LocalCluster;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;

/**
 * Issue 3, fencing: the owner of a partition is frozen with SIGSTOP while producers write to it,
 * stays frozen past its lease TTL so another broker takes the partition over, then continues
 * with SIGCONT holding requests it accepted before the freeze. Its commits must all be refused:
 * the auditor stays clean.
 */
class PausedOwnerIsFencedTest {

    private static final String TOPIC = "fenced";
    private static final Duration TTL = Duration.ofSeconds(2);

    @Test
    void pausedOwnerResumedAfterTakeoverCommitsNothing() {
        try (LocalCluster cluster = LocalCluster.builder("paused-owner").brokers(3).leaseTtl(TTL).start()) {
            cluster.createTopic(TOPIC, 2);
            List<String> brokers = cluster.brokers().stream().map(BrokerProcess::address).toList();
            WorkloadSpec spec = WorkloadSpec.builder(TOPIC, brokers)
                    .producers(3)
                    .partitions(List.of(0, 1))
                    .idempotence(true)
                    .recordsPerProducer(20_000)
                    .recordsPerSecond(300)
                    .maxDuration(Duration.ofSeconds(60))
                    .deliveryTimeout(Duration.ofSeconds(20))
                    .producerOverride(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 2_000)
                    .producerOverride(ProducerConfig.METADATA_MAX_AGE_CONFIG, 500)
                    .build();
            ProduceJournal journal = new ProduceJournal();
            WorkloadResult result;
            int zombieId;
            int successor;
            try (AuditedWorkload workload = new AuditedWorkload(spec, journal).start()) {
                await().atMost(Duration.ofSeconds(30)).until(() -> workload.ackedSoFar() > 500);
                zombieId = owner(cluster, 0);
                BrokerProcess zombie = cluster.broker(zombieId);
                zombie.pause();
                try {
                    await().atMost(TTL.plus(Duration.ofSeconds(10))).until(() -> {
                        OptionalInt owner = cluster.partitionOwner(TOPIC, 0);
                        return owner.isPresent() && owner.getAsInt() != zombieId;
                    });
                    successor = owner(cluster, 0);
                    long ackedAtTakeover = workload.ackedSoFar();
                    await().atMost(Duration.ofSeconds(30)).until(() -> workload.ackedSoFar() > ackedAtTakeover + 300);
                } finally {
                    zombie.resume();
                }
                long ackedAtResume = workload.ackedSoFar();
                await().atMost(Duration.ofSeconds(30)).until(() -> workload.ackedSoFar() > ackedAtResume + 300);
                assertThat(zombie.isAlive()).as("the resumed broker keeps running").isTrue();
                workload.stop();
                result = workload.awaitCompletion(Duration.ofSeconds(40));
            }

            // The producers are idempotent: duplicates fail the audit like overlaps and losses.
            AuditVerdict verdict = new ClusterAudit(cluster, Duration.ofSeconds(30)).audit(journal, false);

            System.out.println("paused owner " + zombieId + ", successor " + successor + ": " + result
                    + System.lineSeparator() + verdict.report());
            assertThat(successor).isNotEqualTo(zombieId);
            assertThat(verdict.overlaps()).as(verdict.report()).isZero();
            assertThat(verdict.ackedMissing()).as(verdict.report()).isZero();
            assertThat(verdict.clean()).as(verdict.report()).isTrue();
        }
    }

    private static int owner(LocalCluster cluster, int partition) {
        OptionalInt owner = cluster.partitionOwner(TOPIC, partition);
        assertThat(owner).as("partition %d of %s has an owner", partition, TOPIC).isPresent();
        return owner.getAsInt();
    }
}
