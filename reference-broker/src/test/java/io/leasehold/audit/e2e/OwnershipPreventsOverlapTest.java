package io.leasehold.audit.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.audit.AuditCli;
import io.leasehold.audit.AuditVerdict;
import io.leasehold.testing.ClusterAudit;
import io.leasehold.testing.LocalCluster;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 3, leases on: real etcd, three reference broker processes, real producers bootstrapped
 * to every broker writing the same partitions while a broker leaves and rejoins. Ownership
 * keeps every partition's offsets exclusive: the auditor finds no overlap and loses nothing.
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

            AuditVerdict verdict = new ClusterAudit(cluster, Duration.ofSeconds(30)).audit(outcome.journal(), false);

            System.out.println("leases on: " + outcome.workload() + System.lineSeparator() + verdict.report());
            assertThat(outcome.workload().acked()).as("producers made progress").isGreaterThan(1_000);
            assertThat(verdict.overlaps()).as(verdict.report()).isZero();
            assertThat(verdict.ackedMissing()).as(verdict.report()).isZero();
            assertThat(verdict.clean()).as(verdict.report()).isTrue();
            assertThat(BrokerChurnScenario.auditWithCli(journalFile, cluster.bootstrapServers())).isEqualTo(AuditCli.CLEAN);
        }
    }
}
