package io.leasehold.audit;

/**
 * The latest known state of one produced record.
 *
 * @param partition the partition it was sent to or acknowledged in, -1 if unknown
 * @param offset    the acknowledged offset, -1 unless {@link SendOutcome#ACKED}
 * @param error     the client's error for {@link SendOutcome#FAILED}, else null
 */
public record JournalEntry(RecordIdentity identity, String topic, int partition, SendOutcome outcome,
                           long offset, String error) {

    /** Whether the broker confirmed the write with an offset. */
    public boolean acked() {
        return outcome == SendOutcome.ACKED;
    }

    /** Whether the broker confirmed the write (with or without telling the offset): it must be found. */
    public boolean confirmed() {
        return outcome.confirmed();
    }

    static JournalEntry from(JournalEvent event) {
        return new JournalEntry(event.identity(), event.topic(), event.partition(), event.event(),
                event.offset(), event.error());
    }
}
