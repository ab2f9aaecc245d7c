package io.leasehold.proxy.backend;

/**
 * The request may have reached the broker but no response arrived (connection lost or timed
 * out). A write in this state must not be retried on the client's behalf.
 */
public final class BackendOutcomeUnknownException extends RuntimeException {
    private final boolean timedOut;

    public BackendOutcomeUnknownException(String message, boolean timedOut) {
        super(message);
        this.timedOut = timedOut;
    }

    /** True for a request timeout, false for a lost connection. */
    public boolean timedOut() {
        return timedOut;
    }
}
