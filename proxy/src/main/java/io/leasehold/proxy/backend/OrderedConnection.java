package io.leasehold.proxy.backend;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;

/**
 * A session's connection to one broker from the moment it is first asked for: requests that
 * arrive while it is still being opened are handed it in the order they arrived, so they reach
 * the broker in that order. A plain {@link CompletableFuture} runs the callbacks waiting on it
 * last-registered-first, which would send a client's pipelined produce batches reversed and have
 * the broker refuse them as out of sequence. Confined to the session's event loop.
 */
final class OrderedConnection {
    private final CompletableFuture<BackendConnection> opened = new CompletableFuture<>();
    private final Queue<CompletableFuture<BackendConnection>> waiting = new ArrayDeque<>();

    /**
     * The connection for the next request: the open connection at once, or, while it is being
     * opened, a future that completes after those of every request that asked earlier.
     */
    CompletableFuture<BackendConnection> nextTurn() {
        if (opened.isDone()) {
            return opened;
        }
        CompletableFuture<BackendConnection> turn = new CompletableFuture<>();
        waiting.add(turn);
        return turn;
    }

    /** The connection once open, for whoever does not send on it (order does not matter to them). */
    CompletableFuture<BackendConnection> opened() {
        return opened;
    }

    /** The connection is open: the waiting requests go out first, in their order, then everyone else. */
    void open(BackendConnection connection) {
        for (CompletableFuture<BackendConnection> turn = waiting.poll(); turn != null; turn = waiting.poll()) {
            turn.complete(connection);
        }
        opened.complete(connection);
    }

    /** The connection could not be opened: every waiting request fails with {@code cause}, in order. */
    void fail(Throwable cause) {
        for (CompletableFuture<BackendConnection> turn = waiting.poll(); turn != null; turn = waiting.poll()) {
            turn.completeExceptionally(cause);
        }
        opened.completeExceptionally(cause);
    }
}
