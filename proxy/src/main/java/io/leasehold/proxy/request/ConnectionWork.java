package io.leasehold.proxy.request;

import java.util.concurrent.CompletableFuture;

/**
 * Work still running on behalf of one client connection: requests being answered, and work
 * whose outcome the client never hears about, such as an acks=0 produce. A broker finishes the
 * requests it has read even if the client hangs up, so the proxy does too: the connection's
 * broker connections stay open until this work is done. It also counts against the
 * connection's in-flight limit, so unanswered requests cannot pile up either, and in the
 * proxy-wide {@link ActiveRequests}, so a graceful drain waits for it.
 */
public final class ConnectionWork {
    private final ActiveRequests active;
    private final Runnable trackedWorkEnded;
    private int running;
    private Runnable onIdle;
    private volatile boolean clientConnected = true;

    /**
     * @param trackedWorkEnded called (on any thread) whenever work passed to {@link #track} ends,
     *                         so the connection can resume reading
     */
    public ConnectionWork(ActiveRequests active, Runnable trackedWorkEnded) {
        this.active = active;
        this.trackedWorkEnded = trackedWorkEnded;
    }

    /**
     * Counts {@code work}, which the client gets no answer for, as running until it completes:
     * against the in-flight limit, and as a reason to keep the broker connections open.
     */
    public void track(CompletableFuture<?> work) {
        started();
        work.whenComplete((result, error) -> {
            finished();
            trackedWorkEnded.run();
        });
    }

    /** Requests and tracked work not finished yet. */
    public synchronized int running() {
        return running;
    }

    public void started() {
        synchronized (this) {
            running++;
        }
        active.started();
    }

    public void finished() {
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

    /** False once the client hung up: nobody waits for answers any more. */
    public boolean clientConnected() {
        return clientConnected;
    }

    /** The client hung up. */
    public void clientClosed() {
        clientConnected = false;
    }

    /** Runs {@code action} once nothing is running any more (at once if nothing is). */
    public void whenIdle(Runnable action) {
        synchronized (this) {
            if (running > 0) {
                onIdle = action;
                return;
            }
        }
        action.run();
    }
}
