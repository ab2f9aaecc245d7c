package io.leasehold.proxy.frontend;

import java.util.concurrent.CompletableFuture;

/**
 * Work still running on behalf of one client connection: requests being answered, and work
 * whose outcome the client never hears about, such as an acks=0 produce. A broker finishes the
 * requests it has read even if the client hangs up, so the proxy does too: the connection's
 * broker connections stay open until this work is done. Each piece also counts in the
 * proxy-wide {@link ActiveRequests}, so a graceful drain waits for it.
 */
public final class ConnectionWork {
    private final ActiveRequests active;
    private int running;
    private Runnable onIdle;

    public ConnectionWork(ActiveRequests active) {
        this.active = active;
    }

    /** Keeps the connection's broker connections open until {@code work} completes. */
    public void track(CompletableFuture<?> work) {
        started();
        work.whenComplete((result, error) -> finished());
    }

    void started() {
        synchronized (this) {
            running++;
        }
        active.started();
    }

    void finished() {
        Runnable idle = null;
        synchronized (this) {
            running--;
            if (running == 0) {
                idle = onIdle;
                onIdle = null;
            }
        }
        active.finished();
        if (idle != null) {
            idle.run();
        }
    }

    /** Runs {@code action} once nothing is running any more (at once if nothing is). */
    void whenIdle(Runnable action) {
        synchronized (this) {
            if (running > 0) {
                onIdle = action;
                return;
            }
        }
        action.run();
    }
}
