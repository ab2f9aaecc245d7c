package io.leasehold.audit;

/** A journal file line that is not a valid {@link JournalEvent}; the message names file and line. */
public final class JournalFormatException extends Exception {

    /** Creates the exception with a message naming the file, line and problem. */
    public JournalFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
