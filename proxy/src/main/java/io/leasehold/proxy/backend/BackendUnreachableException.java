package io.leasehold.proxy.backend;

/**
 * The request was never written to the broker (connect failed or the connection was already
 * gone), so retrying it anywhere is safe.
 */
public final class BackendUnreachableException extends RuntimeException {
    public BackendUnreachableException(String message, Throwable cause) {
        super(message, cause);
    }
}
