package io.leasehold.audit;

/** What a producer learned about one send. */
public enum SendOutcome {
    /** Handed to the client; no outcome yet (or never, when the run ended first). */
    SENT,
    /** Acknowledged by the broker with an offset: the record must be readable at that offset. */
    ACKED,
    /**
     * Acknowledged, but the client does not tell the offset (kcat reports success only for a
     * whole run): the record must be readable somewhere in its partition.
     */
    DELIVERED,
    /** Written with {@code acks=0}: the client got no confirmation, so absence is not a loss. */
    UNCONFIRMED,
    /** The client reported an error; the record may or may not have been written. */
    FAILED;

    /** Whether this outcome ends a send (a later {@link #SENT} event must not overwrite it). */
    boolean isFinal() {
        return this != SENT;
    }

    /** Whether the broker confirmed the write, so the record must be found. */
    boolean confirmed() {
        return this == ACKED || this == DELIVERED;
    }
}
