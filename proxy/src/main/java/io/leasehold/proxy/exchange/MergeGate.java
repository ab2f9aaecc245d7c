package io.leasehold.proxy.exchange;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * When a read merged from several brokers' long polls is answered without waiting for the rest:
 * shortly after the data received reaches the request's minimum or a result the client must see
 * at once (an error) is in, or at a deadline. A broker still long-polling then holds back no
 * other broker's data; what it would have returned is fetched again by the client's next read.
 * "Shortly" is as long again as the first answer took, between 5 and 100 ms: brokers that have
 * data answer at about the same time, and an answer already on its way is worth more than the
 * few milliseconds saved by dropping it (it would only be fetched again).
 * Confined to one event loop.
 */
final class MergeGate {
    private static final long MIN_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    private static final long MAX_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final long enoughBytes;
    private final long startNanos;
    private final EventLoop loop;
    private final CompletableFuture<Void> open = new CompletableFuture<>();
    private final ScheduledFuture<?> deadline;
    private ScheduledFuture<?> grace;
    private long received;
    private boolean reportable;

    /**
     * @param enoughBytes   data after which the answer goes (at least 1)
     * @param startNanos    when the request arrived, on {@link System#nanoTime()}'s clock
     * @param deadlineNanos when the answer goes with whatever is in, on the same clock
     */
    MergeGate(long enoughBytes, long startNanos, long deadlineNanos, EventLoop loop) {
        this.enoughBytes = Math.max(1, enoughBytes);
        this.startNanos = startNanos;
        this.loop = loop;
        long delay = Math.max(0, deadlineNanos - System.nanoTime());
        this.deadline = loop.schedule(() -> open.complete(null), delay, TimeUnit.NANOSECONDS);
        open.whenComplete((v, e) -> {
            deadline.cancel(false);
            if (grace != null) {
                grace.cancel(false);
            }
        });
    }

    /** A partition's data arrived. */
    void received(long bytes) {
        received += bytes;
        if (received >= enoughBytes) {
            openSoon();
        }
    }

    /** A partition's answer the client must see without waiting for more (an error) arrived. */
    void mustReport() {
        reportable = true;
        openSoon();
    }

    private void openSoon() {
        if (grace == null && !open.isDone()) {
            long wait = Math.min(MAX_GRACE_NANOS, Math.max(MIN_GRACE_NANOS, System.nanoTime() - startNanos));
            grace = loop.schedule(() -> open.complete(null), wait, TimeUnit.NANOSECONDS);
        }
    }

    /** Completes when the answer should go, even if some brokers have not answered. */
    CompletableFuture<Void> opened() {
        return open;
    }

    /** True once the answer goes before every broker has answered. */
    boolean isOpen() {
        return open.isDone();
    }

    /** Stops the deadline (the exchange no longer needs the gate). */
    void close() {
        open.complete(null);
    }
}
