package io.leasehold.audit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ScenarioTableTest {

    private static AuditVerdict verdict(boolean overlapping) {
        ProduceJournal journal = new ProduceJournal();
        RecordIdentity a = new RecordIdentity("a", 0);
        RecordIdentity b = new RecordIdentity("b", 0);
        journal.acked(a, "t", 0, 0);
        journal.acked(b, "t", 0, overlapping ? 0 : 1);
        List<ObservedRecord> read = overlapping
                ? List.of(new ObservedRecord("t", 0, 0, a, 1, "x"))
                : List.of(new ObservedRecord("t", 0, 0, a, 1, "x"), new ObservedRecord("t", 0, 1, b, 2, "x"));
        ReadPass pass = new ReadPass("x", List.of(new PartitionRead("t", 0, 0, overlapping ? 1 : 2, read, true)), null);
        return new OffsetAuditor(false).audit(journal.entries(), List.of(pass));
    }

    @Test
    void oneRowPerScenarioWithTheCountsAndVerdict() {
        String table = new ScenarioTable().add("broker SIGKILL", verdict(false)).add("no ownership", verdict(true)).render();

        assertThat(table.lines()).hasSize(4);
        assertThat(table).contains("| broker SIGKILL | 2 | 2 | 2 | 0 | 0 | 0 | 0 | clean |")
                .contains("| no ownership | 2 | 2 | 1 | 0 | 1 | 1 | 0 | NOT CLEAN |");
    }
}
