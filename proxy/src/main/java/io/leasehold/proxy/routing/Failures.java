package io.leasehold.proxy.routing;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** Unwraps the exceptions that CompletableFuture chains wrap around the real cause. */
final class Failures {
    private Failures() {
    }

    static Throwable unwrap(Throwable error) {
        Throwable e = error;
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }
}
