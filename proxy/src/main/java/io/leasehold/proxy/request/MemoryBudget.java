package io.leasehold.proxy.request;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A proxy-wide byte budget over the memory clients make the proxy hold: request frames from
 * the moment they are read until they are answered, parts of frames still arriving, and
 * answers until they are written to the client's socket. When the bytes charged reach the
 * limit the budget is <em>exhausted</em> and every client connection stops reading; it turns
 * available again below {@link #resumeBelow()} (three quarters of the limit), so reading does
 * not flap on and off with each request.
 *
 * <p>Charging never blocks or fails: a request already read always runs to its answer, and
 * broker connections never stop reading because of the budget, since their answers are what
 * gives bytes back. Every charge is given back by an answer, a write, or a connection closing
 * (a deadline closes connections that never complete a frame or never take their answers), so
 * an exhausted budget always recovers. Thread-safe.
 */
public final class MemoryBudget {
    /** Hears when the budget turns exhausted or available again; called on the thread that caused it. */
    public interface Listener {
        void changed(boolean exhausted);
    }

    private final long limit;
    private final long resumeBelow;
    private final AtomicLong used = new AtomicLong();
    private final AtomicBoolean exhausted = new AtomicBoolean();
    private final AtomicLong pauses = new AtomicLong();
    private final List<Listener> listeners = new CopyOnWriteArrayList<>();

    /** @param limit bytes at which client reading pauses; positive */
    public MemoryBudget(long limit) {
        if (limit <= 0) {
            throw new IllegalArgumentException("memory budget must be positive, was " + limit);
        }
        this.limit = limit;
        this.resumeBelow = limit - limit / 4;
    }

    /**
     * The budget when none is configured: half of the direct-memory limit, where request and
     * answer bytes live. The other half covers what the budget does not count (broker answers
     * held for merging, streamed answers in transit, the allocator's unused chunk space, the
     * etcd client's buffers).
     */
    public static long defaultLimit(long maxDirectMemory) {
        return maxDirectMemory / 2;
    }

    /** Registers {@code listener} for every later change of state. */
    public void addListener(Listener listener) {
        listeners.add(listener);
    }

    /** Counts {@code bytes} more as held (a negative amount gives bytes back). */
    public void charge(long bytes) {
        if (bytes == 0) {
            return;
        }
        long now = used.addAndGet(bytes);
        if (bytes > 0 && now >= limit && exhausted.compareAndSet(false, true)) {
            pauses.incrementAndGet();
            listeners.forEach(listener -> listener.changed(true));
        } else if (bytes < 0 && now < resumeBelow && exhausted.compareAndSet(true, false)) {
            listeners.forEach(listener -> listener.changed(false));
        }
    }

    /** Gives back {@code bytes} charged earlier. */
    public void release(long bytes) {
        charge(-bytes);
    }

    /** Whether client connections should not read now. */
    public boolean exhausted() {
        return exhausted.get();
    }

    /** Bytes charged and not given back yet. */
    public long used() {
        return used.get();
    }

    /** The configured limit in bytes. */
    public long limit() {
        return limit;
    }

    /** Below this many bytes used an exhausted budget turns available again. */
    public long resumeBelow() {
        return resumeBelow;
    }

    /** How many times the budget turned exhausted since start. */
    public long pauses() {
        return pauses.get();
    }
}
