package io.leasehold.proxy.request;

import java.time.Duration;

/** Counts requests in progress across all client connections, so shutdown can wait for them. */
public final class ActiveRequests {
    private int active;

    synchronized void started() {
        active++;
    }

    synchronized void finished() {
        active--;
        if (active == 0) {
            notifyAll();
        }
    }

    /** Requests currently in progress. */
    public synchronized int count() {
        return active;
    }

    /** Waits until no request is in progress or {@code timeout} passed; true if drained. */
    public synchronized boolean awaitIdle(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (active > 0) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            wait(Math.max(1, left / 1_000_000));
        }
        return true;
    }
}
