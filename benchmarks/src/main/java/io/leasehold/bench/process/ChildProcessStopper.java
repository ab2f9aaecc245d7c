package io.leasehold.bench.process;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Stops every process a JVM started, and their descendants, when that JVM shuts down: on
 * SIGTERM, on SIGINT (Ctrl-C) and on a normal exit alike. A benchmark's clean-up otherwise lives
 * in {@code finally} blocks and {@code close()} methods, which a JVM stopped by a signal never
 * runs (it runs its shutdown hooks and halts), so the brokers, etcd and proxies it started would
 * keep running and keep their ports.
 *
 * <p>The processes are found as descendants of the JVM rather than registered when started, so
 * whatever started them (the shared test harness, etcd's launcher, JMH, perf) needs no part in
 * this. Each gets SIGTERM, then up to {@link #GRACE} to exit, then SIGKILL.
 */
public final class ChildProcessStopper {

    /** How long the processes get to exit after SIGTERM before they are killed. */
    public static final Duration GRACE = Duration.ofSeconds(5);
    /** How long killed processes get to be gone; then the JVM halts regardless. */
    private static final Duration KILL_WAIT = Duration.ofSeconds(2);
    private static final long POLL_MILLIS = 50;

    private final ProcessHandle parent;

    private ChildProcessStopper(ProcessHandle parent) {
        this.parent = parent;
    }

    /** Makes this JVM stop every process it started, and their descendants, when it shuts down. */
    public static void stopChildrenWhenThisJvmExits() {
        ChildProcessStopper stopper = new ChildProcessStopper(ProcessHandle.current());
        Runtime.getRuntime().addShutdownHook(new Thread(stopper::stopAll, "stop-child-processes"));
    }

    /**
     * Sends SIGTERM to every running descendant of the parent, waits up to the grace period for
     * them to exit, then sends SIGKILL to those left and waits briefly for them to be gone.
     * Returns at once when there are none, so a run that closed its processes itself is not held
     * up.
     */
    private void stopAll() {
        // Handles are kept once seen: a descendant whose parent exits first is re-parented and
        // no longer listed, yet it is still one of ours.
        Set<ProcessHandle> stopping = new HashSet<>();
        signalUntilGone(stopping, ProcessHandle::destroy, GRACE);
        stopping.forEach(ProcessHandle::destroyForcibly);
        signalUntilGone(stopping, ProcessHandle::destroyForcibly, KILL_WAIT);
    }

    /**
     * Until every process in {@code stopping} has exited or {@code time} is up: sends
     * {@code signal} to each descendant not yet in it (adding it) and drops those that exited.
     */
    private void signalUntilGone(Set<ProcessHandle> stopping, Consumer<ProcessHandle> signal, Duration time) {
        long end = System.nanoTime() + time.toNanos();
        do {
            // Listed again on every pass: during shutdown the benchmark's own threads run on and
            // may start another process after the first pass.
            parent.descendants().filter(stopping::add).forEach(signal);
            stopping.removeIf(process -> !process.isAlive());
        } while (!stopping.isEmpty() && pausedBefore(end));
    }

    /** Sleeps one poll interval if that ends before {@code deadline}; false when the time is up. */
    private static boolean pausedBefore(long deadline) {
        if (System.nanoTime() + POLL_MILLIS * 1_000_000 > deadline) {
            return false;
        }
        try {
            Thread.sleep(POLL_MILLIS);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
