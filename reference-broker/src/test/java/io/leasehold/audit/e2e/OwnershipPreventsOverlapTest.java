package io.leasehold.audit.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.audit.AuditCli;
import io.leasehold.audit.AuditVerdict;
import io.leasehold.testing.ClusterAudit;
import io.leasehold.testing.LocalCluster;
import io.leasehold.testing.SharedStorage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 3, leases on: real etcd, three reference broker processes, real producers bootstrapped
 * to every broker writing the same partitions while a broker leaves and rejoins, so partitions
 * change hands mid-run and are written through more than one broker. Ownership keeps every
 * partition's offsets exclusive: the auditor finds no overlap, loses nothing and, the producers
 * being idempotent, finds no record stored twice.
 */
class OwnershipPreventsOverlapTest {

    @TempDir
    Path dir;

    @Test
    void producersOnEveryBrokerGetNoOverlappingOffsetsWhileABrokerLeavesAndRejoins() throws Exception {
        Path journalFile = dir.resolve("journal.jsonl");
        try (LocalCluster cluster = LocalCluster.builder("ownership-lease").brokers(3).leaseTtl(Duration.ofSeconds(3))
                .ownership("lease").start()) {
            BrokerChurnScenario.Outcome outcome = new BrokerChurnScenario(cluster, journalFile).run();

            // The producers are idempotent, so a retried batch must never be stored twice: duplicates fail too.
            AuditVerdict verdict = new ClusterAudit(cluster, Duration.ofSeconds(30)).audit(outcome.journal(), false);
            SharedStorage storage = new SharedStorage(cluster.storageDir());
            Map<Integer, Set<String>> writers = new TreeMap<>();
            for (int partition = 0; partition < BrokerChurnScenario.PARTITIONS; partition++) {
                writers.put(partition, storage.writerTags(BrokerChurnScenario.TOPIC, partition));
            }

            System.out.println("leases on: segment writers per partition " + writers + System.lineSeparator()
                    + outcome.workload() + System.lineSeparator() + verdict.report());
            assertThat(outcome.workload().acked()).as("producers made progress").isGreaterThan(1_000);
            assertThat(writers.values()).as("some partition was written by more than one owner during the run: " + writers)
                    .anyMatch(tags -> tags.size() > 1);
            assertThat(verdict.overlaps()).as(verdict.report()).isZero();
            assertThat(verdict.ackedMissing()).as(verdict.report()).isZero();
            assertThat(verdict.clean()).as(verdict.report()).isTrue();
            assertThat(BrokerChurnScenario.auditWithCli(journalFile, cluster.bootstrapServers())).isEqualTo(AuditCli.CLEAN);
        }
    }
}
