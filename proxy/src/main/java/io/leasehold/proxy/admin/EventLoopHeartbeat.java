package io.leasehold.proxy.admin;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Proves the proxy's event loops still run: each loop stamps the time from a small task it runs
 * every {@code interval}. A loop stuck in a blocking call or an endless task stops stamping, and
 * once any stamp is older than {@code stuckAfter} the process is no longer live, so Kubernetes
 * restarts it rather than leaving the connections on that loop hanging.
 */
public final class EventLoopHeartbeat implements AutoCloseable {
    private final long stuckAfterNanos;
    private final List<AtomicLong> beats = new ArrayList<>();
    private final List<ScheduledFuture<?>> tasks = new ArrayList<>();

    /** Starts a heartbeat task on every event loop of {@code group}. */
    public EventLoopHeartbeat(EventLoopGroup group, Duration interval, Duration stuckAfter) {
        this.stuckAfterNanos = stuckAfter.toNanos();
        for (EventExecutor executor : group) {
            AtomicLong beat = new AtomicLong(System.nanoTime());
            beats.add(beat);
            EventLoop loop = (EventLoop) executor;
            tasks.add(loop.scheduleAtFixedRate(() -> beat.set(System.nanoTime()), 0, interval.toNanos(),
                    TimeUnit.NANOSECONDS));
        }
    }

    /** True while every event loop has run its heartbeat within {@code stuckAfter}. */
    public boolean allResponsive() {
        long now = System.nanoTime();
        return beats.stream().allMatch(beat -> now - beat.get() < stuckAfterNanos);
    }

    @Override
    public void close() {
        tasks.forEach(task -> task.cancel(false));
    }
}
