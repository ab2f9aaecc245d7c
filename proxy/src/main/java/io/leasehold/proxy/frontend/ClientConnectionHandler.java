package io.leasehold.proxy.frontend;

import io.leasehold.proxy.backend.BackendConnector;
import io.leasehold.proxy.backend.BackendListener;
import io.leasehold.proxy.backend.BackendSession;
import io.leasehold.proxy.backend.ResponseStream;
import io.leasehold.proxy.config.ProxyConfig;
import io.leasehold.proxy.logging.ClientText;
import io.leasehold.proxy.logging.WarningRateLimiter;
import io.leasehold.proxy.protocol.FrameCapExceededException;
import io.leasehold.proxy.protocol.KafkaFrameDecoder;
import io.leasehold.proxy.protocol.MalformedRequestException;
import io.leasehold.proxy.protocol.RequestBounds;
import io.leasehold.proxy.protocol.RequestFrame;
import io.leasehold.proxy.request.ActiveRequests;
import io.leasehold.proxy.request.ClientContext;
import io.leasehold.proxy.request.ConnectionThrottle;
import io.leasehold.proxy.request.ConnectionWork;
import io.leasehold.proxy.request.MemoryBudget;
import io.leasehold.proxy.request.NegotiatedVersions;
import io.leasehold.proxy.request.PartitionWriteOrder;
import io.leasehold.proxy.request.RequestHandler;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.netty.util.ReferenceCounted;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection: parses each frame's header, hands the request to the router at once
 * (requests run concurrently), and lets the {@link ResponseSequencer} put responses back in
 * request order. At most {@code maxInFlight} requests are processed at once (acks=0 produce
 * still being delivered included); frames read beyond that wait in arrival order (and while the
 * client is not taking its answers), and reading
 * pauses while any wait, while the client is not taking its responses, or while a backend
 * socket is full, or while the proxy-wide {@link MemoryBudget} is exhausted (frames read and
 * half-read count against it until answered). Requests already read are always dispatched, so
 * a pause never holds up the answers that end it. {@link ClientDeadlines} closes connections
 * that are too slow or idle. A connection starts at most {@code requestsPerSecondPerConnection}
 * requests a second: beyond it, frames wait and the connection is muted (not read) until its
 * rate allows a turn of {@code maxInFlight} more, so one client pipelining requests cannot take
 * its event loop from the other connections on it. A {@link ConnectionThrottle} set by a quota
 * mutes the connection the same way, for the time the answer told the client to wait. A request
 * its handler leaves unanswered
 * past {@code requestDeadline} closes the connection ({@link PendingAnswer}). On
 * {@link #DRAIN} the connection stops reading, finishes what it has read, and closes.
 */
final class ClientConnectionHandler extends ChannelInboundHandlerAdapter {
    /** User event: the proxy is shutting down; finish the requests already read, then close. */
    static final Object DRAIN = new Object() {
        @Override
        public String toString() {
            return "DRAIN";
        }
    };
    /** User event: the memory budget turned exhausted or available; reading follows it. */
    static final Object BUDGET_CHANGED = new Object() {
        @Override
        public String toString() {
            return "BUDGET_CHANGED";
        }
    };
    private static final Logger LOG = LoggerFactory.getLogger(ClientConnectionHandler.class);

    private final RequestHandler router;
    private final BackendConnector connector;
    private final FrontendListener listener;
    private final int maxInFlight;
    private final Duration requestDeadline;
    private final ActiveRequests active;
    private final ChunkedWriteHandler streamWriter;
    private final KafkaFrameDecoder frames;
    private final ClientDeadlines deadlines;
    private final WarningRateLimiter warnings;
    private final MemoryBudget budget;
    private final RequestBounds bounds;
    /** Bytes of a half-received frame charged to the budget. */
    private int partialCharged;
    /** Frames read while {@code maxInFlight} requests were in progress, oldest first. */
    private final ArrayDeque<ByteBuf> waiting = new ArrayDeque<>();
    private ResponseSequencer sequencer;
    private BackendSession backends;
    private ClientContext client;
    private ConnectionWork work;
    private boolean backendsWritable = true;
    private final TokenBucket requestRate;
    private ConnectionThrottle throttle;
    /** Held back by its request rate: waiting frames start, and reading resumes, when it allows. */
    private boolean muted;
    private boolean draining;
    private boolean resuming;
    private boolean resumeScheduled;
    private boolean closeRequested;
    private Channel channel;

    /**
     * @param streamWriter the connection's {@link ChunkedWriteHandler}, which writes streamed
     *                     responses as their bytes arrive
     * @param frames       the connection's frame decoder, asked whether a frame is partly received
     */
    ClientConnectionHandler(RequestHandler router, BackendConnector connector, FrontendListener listener,
                            ProxyConfig.Limits limits, ActiveRequests active, ChunkedWriteHandler streamWriter,
                            KafkaFrameDecoder frames, WarningRateLimiter warnings, MemoryBudget budget) {
        this.warnings = warnings;
        this.budget = budget;
        this.bounds = new RequestBounds(limits.maxPartitionsPerRequest(), limits.maxTopicsPerMetadataRequest());
        this.active = active;
        this.streamWriter = streamWriter;
        this.frames = frames;
        this.router = router;
        this.connector = connector;
        this.listener = listener;
        this.maxInFlight = limits.maxInFlightPerConnection();
        this.requestDeadline = limits.requestDeadline();
        this.requestRate = new TokenBucket(limits.requestsPerSecondPerConnection(), System::nanoTime);
        this.deadlines = new ClientDeadlines(limits.firstRequestTimeout(), limits.frameCompletionTimeout(),
                limits.idleTimeout(), this::hasWork, this::deadlineMissed);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        listener.clientConnectionOpened();
        channel = ctx.channel();
        throttle = ConnectionThrottle.attach(ctx.channel(), () -> resume(ctx), System::nanoTime);
        sequencer = new ResponseSequencer(ctx.channel(), streamWriter, budget);
        work = new ConnectionWork(active, () -> ctx.executor().execute(() -> {
            deadlines.workDone();
            resume(ctx);
        }));
        backends = connector.openSession(ctx.channel().eventLoop(), new BackendListener() {
            @Override
            public void writabilityChanged(boolean writable) {
                backendsWritable = writable;
                updateAutoRead(ctx);
            }
        });
        client = new ClientContext(backends, new PartitionWriteOrder(), work, new NegotiatedVersions(), ctx.alloc(),
                String.valueOf(ctx.channel().remoteAddress()), ctx.channel());
        deadlines.start(ctx.channel(), ctx.pipeline().get(SslHandler.class) != null);
        updateAutoRead(ctx);
        ctx.fireChannelActive();
        if (draining) {
            closeWhenDone(ctx);
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        deadlines.requestReceived();
        ByteBuf frame = (ByteBuf) msg;
        if (!ctx.channel().isActive()) {
            // Decoded from the same read after the connection was closed: nobody is left to answer,
            // and handling each would log one line per frame (a 512 KiB read can hold 131072 frames).
            frame.release();
            return;
        }
        budget.charge(frame.readableBytes());
        if (muted || throttle.active() || !waiting.isEmpty() || atInFlightLimit()) {
            hold(ctx, frame);
            return;
        }
        if (!requestRate.tryAcquire()) {
            mute(ctx);
            hold(ctx, frame);
            return;
        }
        dispatch(ctx, frame);
    }

    /** Keeps {@code frame} until the in-flight limit and the request rate let it start. */
    private void hold(ChannelHandlerContext ctx, ByteBuf frame) {
        waiting.addLast(frame);
        if (muted) {
            listener.requestThrottled();
        } else {
            listener.requestQueued();
        }
        updateAutoRead(ctx);
    }

    /**
     * Stops starting requests and reading until the request rate allows a turn of
     * {@code maxInFlight} requests (Kafka's quota muting): one wake-up per turn, not per request.
     */
    private void mute(ChannelHandlerContext ctx) {
        muted = true;
        listener.connectionMuted();
        updateAutoRead(ctx);
        ctx.executor().schedule(() -> {
            muted = false;
            resume(ctx);
        }, Math.max(1, requestRate.nanosUntilTokens(maxInFlight)), TimeUnit.NANOSECONDS);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        deadlines.afterRead(frames.partialFrameBuffered());
        int partial = frames.partialFrameBytes();
        budget.charge(partial - partialCharged);
        partialCharged = partial;
        ctx.fireChannelReadComplete();
    }

    private boolean atInFlightLimit() {
        return sequencer.pending() >= maxInFlight || work.running() >= maxInFlight;
    }

    private boolean hasWork() {
        return !waiting.isEmpty() || sequencer.pending() > 0 || work.running() > 0;
    }

    /**
     * Starts waiting frames while there is room and the client takes its answers, then reading
     * again if nothing waits. At most {@code maxInFlight} frames start per pass: a client that
     * pipelines thousands of requests answered at once gets the event loop back in turns, so
     * the other connections on the loop are served in between.
     */
    private void resume(ChannelHandlerContext ctx) {
        if (resuming) {
            // A request answered at once, while this loop dispatches: the loop goes on with the next one.
            return;
        }
        resuming = true;
        try {
            int started = 0;
            while (!muted && !throttle.active() && !waiting.isEmpty() && !atInFlightLimit() && ctx.channel().isActive()
                    && ctx.channel().isWritable()) {
                if (started == maxInFlight) {
                    resumeLater(ctx);
                    break;
                }
                if (!requestRate.tryAcquire()) {
                    mute(ctx);
                    break;
                }
                dispatch(ctx, waiting.pollFirst());
                started++;
            }
        } finally {
            resuming = false;
        }
        updateAutoRead(ctx);
        closeWhenDone(ctx);
    }

    /**
     * Goes on with the waiting frames after the event loop's next round of socket I/O. A
     * scheduled task, not a plain one: Netty runs plain tasks queued meanwhile for up to a
     * second before it reads sockets again, so a pass that queued its own continuation would
     * starve every other connection on the loop.
     */
    private void resumeLater(ChannelHandlerContext ctx) {
        if (!resumeScheduled) {
            resumeScheduled = true;
            ctx.executor().schedule(() -> {
                resumeScheduled = false;
                resume(ctx);
            }, 0, TimeUnit.NANOSECONDS);
        }
    }

    private void dispatch(ChannelHandlerContext ctx, ByteBuf frame) {
        int size = frame.readableBytes();
        RequestFrame request;
        try {
            request = RequestFrame.parse(frame, bounds);
        } catch (MalformedRequestException e) {
            frame.release();
            budget.release(size);
            reject(ctx, e.reason(), e.getMessage());
            return;
        }
        long started = System.nanoTime();
        work.started();
        ResponseSequencer.Slot slot = sequencer.reserve();
        updateAutoRead(ctx);
        CompletableFuture<ReferenceCounted> response;
        try {
            response = router.handle(request, client);
        } catch (RuntimeException e) {
            response = CompletableFuture.failedFuture(e);
        }
        PendingAnswer.await(response, requestDeadline, ctx.executor(),
                (buf, error) -> finish(ctx, slot, request, size, started, buf, error));
    }

    /** {@code request} may be released by now; its parsed header, all a description uses, stays readable. */
    private void finish(ChannelHandlerContext ctx, ResponseSequencer.Slot slot, RequestFrame request, int size,
                        long started, ReferenceCounted response, Throwable error) {
        budget.release(size);
        if (response instanceof ResponseStream stream) {
            // Still arriving: it counts as in flight, and a graceful drain waits, until its last byte is out.
            stream.onClose(() -> {
                work.finished();
                deadlines.workDone();
                resume(ctx);
            });
        } else {
            work.finished();
        }
        listener.requestCompleted(request.apiKey(), System.nanoTime() - started, error != null);
        listener.requestTransferred(request.apiKey(), size, responseFrameBytes(response));
        if (error != null) {
            Throwable cause = error.getCause() != null && error instanceof java.util.concurrent.CompletionException
                    ? error.getCause() : error;
            if (cause instanceof MalformedRequestException malformed) {
                reject(ctx, malformed.reason(), malformed.getMessage());
            } else if (cause instanceof PendingAnswer.RequestDeadlineException) {
                listener.connectionTimedOut("request_deadline");
                LOG.info("Closing client {}: request {} was not answered within limits.requestDeadline",
                        client.remote(), request);
                ctx.close();
            } else {
                warnings.warn(LOG, "request failed", ctx.channel().remoteAddress(),
                        "Closing client {}: request {} failed: {}", client.remote(), request,
                        ClientText.escape(cause.toString()));
                ctx.close();
            }
            sequencer.complete(slot, null);
            return;
        }
        sequencer.complete(slot, response);
        deadlines.workDone();
        resume(ctx);
    }

    /** The answer's frame bytes without the size prefix: 0 for none (acks=0 Produce, a failure). */
    private static long responseFrameBytes(ReferenceCounted response) {
        if (response instanceof ResponseStream stream) {
            // A streamed answer carries its own size prefix.
            return stream.length() - 4;
        }
        return response instanceof ByteBuf frame ? frame.readableBytes() : 0;
    }

    private void reject(ChannelHandlerContext ctx, String reason, String message) {
        listener.frameRejected(reason);
        warnings.warn(LOG, "rejected " + reason, ctx.channel().remoteAddress(), "Closing client {}: {}",
                ctx.channel().remoteAddress(), ClientText.escape(message));
        ctx.close();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        // Frames waiting for the client to take its answers may start now.
        resume(ctx);
        // Slow client: stop pulling responses from its brokers too, so memory stays bounded.
        backends.setAutoRead(ctx.channel().isWritable());
        ctx.fireChannelWritabilityChanged();
    }

    private void updateAutoRead(ChannelHandlerContext ctx) {
        boolean read = !draining && !muted && !throttle.active() && waiting.isEmpty() && !atInFlightLimit()
                && ctx.channel().isWritable() && backendsWritable && !budget.exhausted();
        if (ctx.channel().config().isAutoRead() != read) {
            ctx.channel().config().setAutoRead(read);
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof SslHandshakeCompletionEvent completion && completion.isSuccess()) {
            deadlines.handshakeDone();
        }
        if (evt == BUDGET_CHANGED) {
            if (sequencer != null) {
                updateAutoRead(ctx);
            }
            return;
        }
        if (evt == DRAIN) {
            draining = true;
            if (sequencer != null) {
                updateAutoRead(ctx);
                closeWhenDone(ctx);
            }
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    /** While draining: once every request read has been answered, flushes the answers and closes. */
    private void closeWhenDone(ChannelHandlerContext ctx) {
        if (!draining || closeRequested || hasWork() || !ctx.channel().isActive()) {
            return;
        }
        closeRequested = true;
        // Written below the length prepender, behind every answer still queued for the socket.
        ctx.pipeline().context(frames).writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
    }

    private void deadlineMissed(ClientDeadlines.Expiry expiry) {
        switch (expiry) {
            case IDLE -> {
                listener.idleConnectionClosed();
                LOG.info("Closing idle client {}", client.remote());
            }
            case FIRST_REQUEST -> {
                listener.connectionTimedOut("first_request");
                LOG.info("Closing client {}: no complete request within limits.firstRequestTimeout", client.remote());
            }
            case FRAME_COMPLETION -> {
                listener.connectionTimedOut("frame_completion");
                LOG.info("Closing client {}: a request frame was not completed within limits.frameCompletionTimeout",
                        client.remote());
            }
            case RESPONSE_STALLED -> {
                listener.connectionTimedOut("response_stalled");
                LOG.info("Closing client {}: it took no byte of its answers within limits.frameCompletionTimeout",
                        client.remote());
            }
        }
        channel.close();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof FrameCapExceededException capped) {
            reject(ctx, capped.reason(), "frame rejected: " + capped.getMessage());
        } else if (cause instanceof TooLongFrameException) {
            reject(ctx, "oversized", "frame rejected: " + cause.getMessage());
        } else if (cause instanceof CorruptedFrameException) {
            reject(ctx, "malformed", "frame rejected: " + cause.getMessage());
        } else {
            warnings.warn(LOG, "error", ctx.channel().remoteAddress(), "Closing client {} after an error: {}",
                    ctx.channel().remoteAddress(), ClientText.escape(cause.toString()));
            ctx.close();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        listener.clientConnectionClosed();
        deadlines.stop();
        for (ByteBuf frame : waiting) {
            budget.release(frame.readableBytes());
            frame.release();
        }
        waiting.clear();
        budget.release(partialCharged);
        partialCharged = 0;
        sequencer.close();
        // Requests already read still reach their brokers, as they would had the client stayed;
        // only their retries stop, since nobody waits for the answer.
        work.clientClosed();
        work.whenIdle(backends::close);
        ctx.fireChannelInactive();
    }
}
