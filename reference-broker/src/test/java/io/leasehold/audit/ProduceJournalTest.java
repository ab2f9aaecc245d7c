package io.leasehold.audit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProduceJournalTest {

    private final RecordIdentity id = new RecordIdentity("p0", 1);

    @Test
    void outcomeIsNotOverwrittenByALateSentEvent() {
        ProduceJournal journal = new ProduceJournal();
        journal.acked(id, "t", 2, 40);
        journal.sent(id, "t", 2);

        assertThat(journal.entries()).singleElement()
                .satisfies(entry -> assertThat(entry.acked()).isTrue())
                .satisfies(entry -> assertThat(entry.offset()).isEqualTo(40));
    }

    @Test
    void acknowledgementWinsOverAFailureForTheSameRecord() {
        ProduceJournal journal = new ProduceJournal();
        journal.sent(id, "t", 2);
        journal.acked(id, "t", 2, 40);
        journal.failed(id, "t", 2, "late error");

        assertThat(journal.count(SendOutcome.ACKED)).isEqualTo(1);
        assertThat(journal.count(SendOutcome.FAILED)).isZero();
    }

    @Test
    void everyEventReachesTheSinkInOrder() {
        List<JournalEvent> events = new ArrayList<>();
        ProduceJournal journal = new ProduceJournal(events::add);
        journal.sent(id, "t", -1);
        journal.failed(id, "t", -1, "boom");

        assertThat(events).extracting(JournalEvent::event).containsExactly(SendOutcome.SENT, SendOutcome.FAILED);
    }
}
