package io.leasehold.audit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class OffsetAuditorTest {

    private static final String TOPIC = "orders";

    private final ProduceJournal journal = new ProduceJournal();
    private final OffsetAuditor strict = new OffsetAuditor(false);

    private static RecordIdentity id(String producer, long seq) {
        return new RecordIdentity(producer, seq);
    }

    private static ObservedRecord seen(long offset, RecordIdentity id, String source) {
        return new ObservedRecord(TOPIC, 0, offset, id, id == null ? 7 : id.hashCode(), source);
    }

    private static ReadPass pass(String source, long start, long end, List<ObservedRecord> records) {
        return new ReadPass(source, List.of(new PartitionRead(TOPIC, 0, start, end, records, true)), null);
    }

    /** Acks p/0..count-1 at offsets base.. and returns the read of exactly those. */
    private List<ObservedRecord> ackAndRead(String producer, int count, long base, String source) {
        List<ObservedRecord> records = new ArrayList<>();
        for (int seq = 0; seq < count; seq++) {
            journal.sent(id(producer, seq), TOPIC, 0);
            journal.acked(id(producer, seq), TOPIC, 0, base + seq);
            records.add(seen(base + seq, id(producer, seq), source));
        }
        return records;
    }

    @Test
    void cleanWhenEveryAckedRecordIsReadAtItsAckedOffset() {
        List<ObservedRecord> records = new ArrayList<>(ackAndRead("a", 5, 0, "b1"));
        records.addAll(ackAndRead("b", 5, 5, "b1"));

        AuditVerdict verdict = strict.audit(journal.entries(), List.of(pass("b1", 0, 10, records)));

        assertThat(verdict.clean()).as(verdict.report()).isTrue();
        assertThat(verdict.found()).isEqualTo(10);
        assertThat(verdict.acked()).isEqualTo(10);
        assertThat(verdict.summary()).startsWith("CLEAN");
    }

    @Test
    void shadowedSegmentShowsAsOverlapsAndMissingAckedRecords() {
        // Two brokers both started at offset 0; the index kept broker A's segment, so B's records are shadowed.
        List<ObservedRecord> visible = ackAndRead("a", 4, 0, "b1");
        ackAndRead("b", 4, 0, "b1");

        AuditVerdict verdict = strict.audit(journal.entries(), List.of(pass("b1", 0, 4, visible)));

        assertThat(verdict.clean()).isFalse();
        assertThat(verdict.overlaps()).isEqualTo(4);
        assertThat(verdict.ackedMissing()).isEqualTo(4);
        assertThat(verdict.report()).contains("overlap: offset 0 claimed by").contains("b#0 (acked)");
    }

    @Test
    void overlapWhenTwoReadPassesSeeDifferentRecordsAtOneOffset() {
        journal.sent(id("a", 0), TOPIC, 0);
        journal.sent(id("b", 0), TOPIC, 0);

        AuditVerdict verdict = strict.audit(journal.entries(), List.of(
                pass("broker-1", 0, 1, List.of(seen(0, id("a", 0), "broker-1"))),
                pass("broker-2", 0, 1, List.of(seen(0, id("b", 0), "broker-2")))));

        assertThat(verdict.overlaps()).isEqualTo(1);
        assertThat(verdict.clean()).isFalse();
    }

    @Test
    void unauditedRecordsThatDifferAtOneOffsetAreAnOverlapToo() {
        AuditVerdict verdict = strict.audit(journal.entries(), List.of(
                pass("broker-1", 0, 1, List.of(new ObservedRecord(TOPIC, 0, 0, null, 1, "broker-1"))),
                pass("broker-2", 0, 1, List.of(new ObservedRecord(TOPIC, 0, 0, null, 2, "broker-2")))));

        assertThat(verdict.overlaps()).isEqualTo(1);
    }

    @Test
    void identicalReadsThroughSeveralBrokersAreNoOverlap() {
        List<ObservedRecord> records = ackAndRead("a", 3, 0, "broker-1");
        List<ObservedRecord> again = records.stream().map(r -> seen(r.offset(), r.identity(), "broker-2")).toList();

        AuditVerdict verdict = strict.audit(journal.entries(), List.of(pass("broker-1", 0, 3, records),
                pass("broker-2", 0, 3, again)));

        assertThat(verdict.clean()).as(verdict.report()).isTrue();
        assertThat(verdict.found()).isEqualTo(3);
    }

    @Test
    void ackedRecordAbsentFromTheLogIsMissing() {
        List<ObservedRecord> records = ackAndRead("a", 3, 0, "b1");

        AuditVerdict verdict = strict.audit(journal.entries(), List.of(pass("b1", 0, 2, records.subList(0, 2))));

        assertThat(verdict.ackedMissing()).isEqualTo(1);
        assertThat(verdict.report()).contains("missing: a#2 acked at offset 2 not found");
    }

    @Test
    void deliveredRecordWithoutOffsetMustBeFoundSomewhereInItsPartition() {
        journal.sent(id("kcat", 0), TOPIC, 0);
        journal.delivered(id("kcat", 0), TOPIC, 0);
        journal.sent(id("kcat", 1), TOPIC, 0);
        journal.delivered(id("kcat", 1), TOPIC, 0);

        AuditVerdict verdict = strict.audit(journal.entries(), List.of(pass("b1", 0, 1, List.of(seen(0, id("kcat", 1), "b1")))));

        assertThat(verdict.ackedMissing()).isEqualTo(1);
        assertThat(verdict.misplaced()).isZero();
        assertThat(verdict.overlaps()).isZero();
        assertThat(verdict.report()).contains("kcat#0 delivered (offset not reported) not found");
    }

    @Test
    void failedPendingAndUnconfirmedSendsMayBeAbsent() {
        journal.sent(id("a", 0), TOPIC, 0);
        journal.sent(id("a", 1), TOPIC, 0);
        journal.failed(id("a", 1), TOPIC, 0, "TimeoutException");
        journal.sent(id("a", 2), TOPIC, 0);
        journal.unconfirmed(id("a", 2), TOPIC, 0);

        AuditVerdict verdict = strict.audit(journal.entries(), List.of(pass("b1", 0, 0, List.of())));

        assertThat(verdict.clean()).as(verdict.report()).isTrue();
        assertThat(verdict.pending()).isEqualTo(1);
        assertThat(verdict.failed()).isEqualTo(1);
        assertThat(verdict.unconfirmed()).isEqualTo(1);
    }

    @Test
    void recordAtTwoOffsetsIsADuplicateUnlessTolerated() {
        journal.sent(id("a", 0), TOPIC, 0);
        journal.acked(id("a", 0), TOPIC, 0, 1);
        ReadPass read = pass("b1", 0, 2, List.of(seen(0, id("a", 0), "b1"), seen(1, id("a", 0), "b1")));

        AuditVerdict strictVerdict = strict.audit(journal.entries(), List.of(read));
        AuditVerdict tolerant = new OffsetAuditor(true).audit(journal.entries(), List.of(read));

        assertThat(strictVerdict.duplicates()).isEqualTo(1);
        assertThat(strictVerdict.clean()).isFalse();
        assertThat(tolerant.clean()).as(tolerant.report()).isTrue();
    }

    @Test
    void offsetsWithoutRecordsBetweenStartAndEndAreGaps() {
        List<ObservedRecord> records = ackAndRead("a", 2, 0, "b1");
        journal.sent(id("a", 9), TOPIC, 0);
        journal.acked(id("a", 9), TOPIC, 0, 5);
        List<ObservedRecord> withGap = new ArrayList<>(records);
        withGap.add(seen(5, id("a", 9), "b1"));

        AuditVerdict verdict = strict.audit(journal.entries(), List.of(pass("b1", 0, 6, withGap)));

        assertThat(verdict.gaps()).isEqualTo(3);
        assertThat(verdict.clean()).isFalse();
        assertThat(verdict.report()).contains("gap: no record at offset 2");
    }

    @Test
    void ackedRecordFoundAtAnotherOffsetIsMisplaced() {
        journal.sent(id("a", 0), TOPIC, 0);
        journal.acked(id("a", 0), TOPIC, 0, 3);

        AuditVerdict verdict = strict.audit(journal.entries(), List.of(pass("b1", 0, 1, List.of(seen(0, id("a", 0), "b1")))));

        assertThat(verdict.misplaced()).isEqualTo(1);
        assertThat(verdict.clean()).isFalse();
    }

    @Test
    void auditedRecordNobodyJournaledIsUnexpected() {
        AuditVerdict verdict = strict.audit(journal.entries(), List.of(pass("b1", 0, 1, List.of(seen(0, id("ghost", 0), "b1")))));

        assertThat(verdict.unexpected()).isEqualTo(1);
        assertThat(verdict.clean()).isFalse();
    }

    @Test
    void offsetsGoingBackwardsWithinOnePassAreDisorder() {
        List<ObservedRecord> records = ackAndRead("a", 2, 0, "b1");

        AuditVerdict verdict = strict.audit(journal.entries(), List.of(pass("b1", 0, 2,
                List.of(records.get(0), records.get(1), records.get(0)))));

        assertThat(verdict.disorder()).isEqualTo(1);
        assertThat(verdict.clean()).isFalse();
    }

    @Test
    void incompleteReadIsNeverClean() {
        List<ObservedRecord> records = ackAndRead("a", 2, 0, "b1");
        ReadPass partial = new ReadPass("b1", List.of(new PartitionRead(TOPIC, 0, 0, 2, records, false)), null);
        ReadPass failed = new ReadPass("b2", List.of(), "read through b2 failed: timeout");

        assertThat(strict.audit(journal.entries(), List.of(partial)).clean()).isFalse();
        AuditVerdict verdict = strict.audit(journal.entries(), List.of(failed, pass("b1", 0, 2, records)));
        assertThat(verdict.clean()).isFalse();
        assertThat(verdict.readErrors()).containsExactly("read through b2 failed: timeout");
    }
}
