package io.leasehold.proxy.frontend;

import io.netty.channel.Channel;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The deadlines one client connection must meet, so slow or silent sockets cannot hold
 * connection slots and buffers: its first complete request within {@code firstRequest} of
 * connecting (of completing its TLS handshake, which has its own timeout, on a TLS listener),
 * every frame complete within {@code frameCompletion} of its first byte (counted only while
 * the proxy reads the connection), and a
 * complete request (or an answer going out) at least every {@code idle} while it has no work,
 * from the moment it connects (whichever of the first two deadlines ends first applies), and
 * answers it does not take must move: a connection whose socket stays full with no byte taken
 * for {@code frameCompletion} is closed too, so answers queued for it do not hold the proxy's
 * memory forever. During a TLS handshake only the handshake's own timeout applies.
 * Only complete requests count as activity: a byte now and then does not keep a connection
 * open. Checked by a timer on the connection's event loop; event-loop confined.
 */
final class ClientDeadlines {
    /** What a connection failed to do in time. */
    enum Expiry { FIRST_REQUEST, FRAME_COMPLETION, RESPONSE_STALLED, IDLE }

    /** Called once when a deadline is missed. */
    interface Listener {
        void expired(Expiry expiry);
    }

    private static final long MIN_TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    private static final long MAX_TICK_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final long firstRequestNanos;
    private final long frameCompletionNanos;
    private final long idleNanos;
    private final BooleanSupplier hasWork;
    private final Listener listener;
    /** When the clock for the first request started; 0 while a TLS handshake is still going on. */
    private long connectedAt;
    private long lastActivity;
    private boolean requestSeen;
    /** When the frame now being received started; 0 when no frame is partly received. */
    private long partialSince;
    /** Since when the socket has been full without taking a byte; 0 while it takes answers. */
    private long stalledSince;
    private long unsentBefore;
    private Channel channel;
    private ScheduledFuture<?> ticker;

    /**
     * @param hasWork whether the connection has requests being processed or waiting; such a
     *                connection is busy, not idle
     */
    ClientDeadlines(Duration firstRequest, Duration frameCompletion, Duration idle, BooleanSupplier hasWork,
                    Listener listener) {
        this.firstRequestNanos = firstRequest.toNanos();
        this.frameCompletionNanos = frameCompletion.toNanos();
        this.idleNanos = idle.toNanos();
        this.hasWork = hasWork;
        this.listener = listener;
    }

    /**
     * Starts the clocks when the connection opens.
     *
     * @param handshaking whether a TLS handshake comes first; the first-request clock then starts
     *                    with {@link #handshakeDone()}
     */
    void start(Channel channel, boolean handshaking) {
        this.channel = channel;
        lastActivity = System.nanoTime();
        connectedAt = handshaking ? 0 : lastActivity;
        // A quarter of the shortest deadline: a miss is noticed within 25 % of it (at most a second late).
        long tick = Math.min(MAX_TICK_NANOS, Math.max(MIN_TICK_NANOS,
                Math.min(firstRequestNanos, Math.min(frameCompletionNanos, idleNanos)) / 4));
        ticker = channel.eventLoop().scheduleAtFixedRate(this::check, tick, tick, TimeUnit.NANOSECONDS);
    }

    /** The TLS handshake succeeded: the client may now send its first request. */
    void handshakeDone() {
        connectedAt = System.nanoTime();
        lastActivity = connectedAt;
    }

    /** A complete request arrived. */
    void requestReceived() {
        requestSeen = true;
        lastActivity = System.nanoTime();
    }

    /** An answer went out or the connection's work ended. */
    void workDone() {
        lastActivity = System.nanoTime();
    }

    /** After a socket read: whether part of a frame is still waiting for its remaining bytes. */
    void afterRead(boolean partialFrameBuffered) {
        if (!partialFrameBuffered) {
            partialSince = 0;
        } else if (partialSince == 0) {
            partialSince = System.nanoTime();
        }
    }

    /** Stops the timer when the connection closes. */
    void stop() {
        if (ticker != null) {
            ticker.cancel(false);
        }
    }

    private void check() {
        long now = System.nanoTime();
        if (partialSince != 0 && !channel.config().isAutoRead()) {
            // The proxy is not reading (a quota throttle, backpressure): the rest of the frame is not late.
            partialSince = now;
        }
        Expiry expiry = null;
        if (!requestSeen && connectedAt != 0 && now - connectedAt >= firstRequestNanos) {
            expiry = Expiry.FIRST_REQUEST;
        } else if (partialSince != 0 && now - partialSince >= frameCompletionNanos) {
            expiry = Expiry.FRAME_COMPLETION;
        } else if (answersStalled(now)) {
            expiry = Expiry.RESPONSE_STALLED;
        } else if (connectedAt != 0 && partialSince == 0 && now - lastActivity >= idleNanos
                && !hasWork.getAsBoolean()) {
            expiry = Expiry.IDLE;
        }
        if (expiry != null) {
            stop();
            listener.expired(expiry);
        }
    }

    /** Whether the socket has been full for {@code frameCompletion} without the client taking a byte. */
    private boolean answersStalled(long now) {
        if (channel.isWritable()) {
            stalledSince = 0;
            return false;
        }
        long unsent = channel.bytesBeforeWritable();
        if (stalledSince == 0 || unsent < unsentBefore) {
            stalledSince = now;
        }
        unsentBefore = unsent;
        return now - stalledSince >= frameCompletionNanos;
    }
}
