package io.leasehold.audit;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a workload produced and which sends were acknowledged, keyed by record identity. Safe to
 * update from producer callbacks; every event is also handed to an optional {@link JournalSink}.
 */
public final class ProduceJournal {

    private final Map<RecordIdentity, JournalEntry> entries = new ConcurrentHashMap<>();
    private final JournalSink sink;

    /** A journal kept only in memory. */
    public ProduceJournal() {
        this(event -> { });
    }

    /** A journal that also copies every event to {@code sink}. */
    public ProduceJournal(JournalSink sink) {
        this.sink = sink;
    }

    /** Records that a send was handed to the client. */
    public void sent(RecordIdentity id, String topic, int partition) {
        record(JournalEvent.of(SendOutcome.SENT, id, topic, partition, -1, null));
    }

    /** Records an acknowledgement with the offset the broker assigned. */
    public void acked(RecordIdentity id, String topic, int partition, long offset) {
        record(JournalEvent.of(SendOutcome.ACKED, id, topic, partition, offset, null));
    }

    /** Records a write the client confirmed without telling its offset (e.g. a successful kcat run). */
    public void delivered(RecordIdentity id, String topic, int partition) {
        record(JournalEvent.of(SendOutcome.DELIVERED, id, topic, partition, -1, null));
    }

    /** Records an {@code acks=0} send the client completed without confirmation. */
    public void unconfirmed(RecordIdentity id, String topic, int partition) {
        record(JournalEvent.of(SendOutcome.UNCONFIRMED, id, topic, partition, -1, null));
    }

    /** Records a send the client failed; it may still have been written. */
    public void failed(RecordIdentity id, String topic, int partition, String error) {
        record(JournalEvent.of(SendOutcome.FAILED, id, topic, partition, -1, error));
    }

    /**
     * Applies one event. A final outcome is never replaced by a later {@code SENT} for the same
     * record, and a confirmation wins over a failure (a client may report both for one send
     * only through a bug, and the acknowledgement is the stronger claim to audit).
     */
    public void record(JournalEvent event) {
        JournalEntry next = JournalEntry.from(event);
        entries.merge(event.identity(), next, ProduceJournal::newer);
        sink.append(event);
    }

    /** Adds every entry of another journal (e.g. several producer processes' journals). */
    public void addAll(Collection<JournalEntry> other) {
        other.forEach(entry -> entries.merge(entry.identity(), entry, ProduceJournal::newer));
    }

    /** A sorted copy of all entries. */
    public List<JournalEntry> entries() {
        List<JournalEntry> copy = new ArrayList<>(entries.values());
        copy.sort(Comparator.comparing(JournalEntry::identity));
        return List.copyOf(copy);
    }

    /** Number of records with the given outcome. */
    public long count(SendOutcome outcome) {
        return entries.values().stream().filter(entry -> entry.outcome() == outcome).count();
    }

    /** Number of records sent. */
    public int size() {
        return entries.size();
    }

    private static JournalEntry newer(JournalEntry current, JournalEntry next) {
        if (next.outcome() == SendOutcome.SENT && current.outcome().isFinal()) {
            return current;
        }
        if (current.confirmed() && next.outcome() == SendOutcome.FAILED) {
            return current;
        }
        return next;
    }
}
