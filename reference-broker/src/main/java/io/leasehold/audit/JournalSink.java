package io.leasehold.audit;

/** Where a {@link ProduceJournal} copies its events as they happen (for example a file). */
@FunctionalInterface
public interface JournalSink {

    /** Appends one event; called concurrently from producer callbacks. */
    void append(JournalEvent event);
}
