package io.leasehold.audit;

import java.util.Objects;

/**
 * One line of a produce journal: a send or its outcome. {@code partition} is -1 when the client
 * chose the partition and no outcome told which; {@code offset} is -1 unless acknowledged.
 */
public record JournalEvent(SendOutcome event, String producer, long seq, String topic, int partition,
                           long offset, String error) {

    /** Checks the fields every event needs. */
    public JournalEvent {
        Objects.requireNonNull(event, "event");
        Objects.requireNonNull(topic, "topic");
        new RecordIdentity(producer, seq);
        if (event == SendOutcome.ACKED && (offset < 0 || partition < 0)) {
            throw new IllegalArgumentException("an acked event needs a partition and an offset: " + producer + '#' + seq);
        }
        if (event == SendOutcome.DELIVERED && partition < 0) {
            throw new IllegalArgumentException("a delivered event needs a partition: " + producer + '#' + seq);
        }
    }

    /** The identity of the record this event is about. */
    public RecordIdentity identity() {
        return new RecordIdentity(producer, seq);
    }

    static JournalEvent of(SendOutcome event, RecordIdentity id, String topic, int partition, long offset, String error) {
        return new JournalEvent(event, id.producerId(), id.sequence(), topic, partition, offset, error);
    }
}
