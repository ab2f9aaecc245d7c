package io.leasehold.proxy.backend;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** Unwraps the exceptions that CompletableFuture chains wrap around the real cause, and names it. */
public final class Failures {
    private Failures() {
    }

    /**
     * Why a request to a broker got no response, as the {@code reason} of
     * {@code leasehold_backend_request_failures_total}: "unreachable" (never sent), "timeout"
     * (sent, no answer in time), "disconnected" (sent, connection lost) or "other".
     */
    public static String reason(Throwable error) {
        Throwable cause = unwrap(error);
        if (cause instanceof BackendUnreachableException) {
            return "unreachable";
        }
        if (cause instanceof BackendOutcomeUnknownException unknown) {
            return unknown.timedOut() ? "timeout" : "disconnected";
        }
        return "other";
    }

    /** The cause inside any CompletionException or ExecutionException wrappers. */
    public static Throwable unwrap(Throwable error) {
        Throwable e = error;
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }
}
