package io.leasehold.proxy.protocol;

/**
 * A client frame that cannot be understood. The message says what was wrong and where, so the
 * log line written when the connection is closed is enough to diagnose a misbehaving client.
 */
public final class MalformedRequestException extends Exception {
    private final String reason;

    /**
     * @param reason short metric label ("malformed", "unknown_api_key", ...)
     * @param message what was wrong and where
     */
    public MalformedRequestException(String reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    /** Short, low-cardinality label for the {@code frameRejected} metric. */
    public String reason() {
        return reason;
    }
}
