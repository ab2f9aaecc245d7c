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
 * Issue 3, {@code --ownership none}: the same workload as {@link OwnershipPreventsOverlapTest}
 * against brokers that read the next offset once and count in memory. When a partition's
 * traffic moves away from a broker and back, that broker hands out offsets another broker has
 * used meanwhile; the auditor must catch the overlap (proof that it can fail).
 */
class LegacyOwnershipOverlapsTest {

    @TempDir
    Path dir;

    @Test
    void auditorCatchesOverlappingOffsetsWithoutOwnership() throws Exception {
        Path journalFile = dir.resolve("journal.jsonl");
        try (LocalCluster cluster = LocalCluster.builder("ownership-none").brokers(3).leaseTtl(Duration.ofSeconds(3))
                .ownership("none").start()) {
            BrokerChurnScenario.Outcome outcome = new BrokerChurnScenario(cluster, journalFile).run();

            AuditVerdict verdict = new ClusterAudit(cluster, Duration.ofSeconds(30)).audit(outcome.journal(), true);

            System.out.println("ownership none: leaders " + outcome.leadersBefore() + " -> " + outcome.leadersWithoutBroker3()
                    + " -> " + outcome.leadersAfter() + System.lineSeparator() + outcome.workload()
                    + System.lineSeparator() + verdict.report());
            assertThat(outcome.partitionsMovedBetweenSurvivors()).as("traffic of some partition moved between brokers 1 and 2: "
                    + outcome.leadersBefore() + " -> " + outcome.leadersWithoutBroker3()).isPositive();
            assertThat(verdict.overlaps()).as(verdict.report()).isPositive();
            assertThat(verdict.clean()).isFalse();
            assertThat(BrokerChurnScenario.auditWithCli(journalFile, cluster.bootstrapServers(), "--allow-duplicates")).isEqualTo(AuditCli.DIRTY);
        }
    }
}
