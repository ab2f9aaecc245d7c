package io.leasehold.proxy.frontend;

import io.leasehold.proxy.admin.ProxyMetrics;
import io.leasehold.proxy.backend.BackendConnector;
import io.leasehold.proxy.backend.BackendListener;
import io.leasehold.proxy.backend.BackendSession;
import io.leasehold.proxy.backend.ResponseStream;
import io.leasehold.proxy.protocol.MalformedRequestException;
import io.leasehold.proxy.protocol.RequestFrame;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCounted;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection: parses each frame's header, hands the request to the router at once
 * (requests run concurrently), and lets the {@link ResponseSequencer} put responses back in
 * request order. Reading pauses while too many requests are in flight (acks=0 produce still
 * being delivered included), while the client is not taking its responses, or while a backend
 * socket is full.
 */
final class ClientConnectionHandler extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(ClientConnectionHandler.class);

    private final RequestHandler router;
    private final BackendConnector connector;
    private final ProxyMetrics metrics;
    private final int maxInFlight;
    private final ActiveRequests active;
    private final ChunkedWriteHandler streamWriter;
    private ResponseSequencer sequencer;
    private BackendSession backends;
    private ClientContext client;
    private ConnectionWork work;
    private boolean backendsWritable = true;

    /**
     * @param streamWriter the connection's {@link ChunkedWriteHandler}, which writes streamed
     *                     responses as their bytes arrive
     */
    ClientConnectionHandler(RequestHandler router, BackendConnector connector, ProxyMetrics metrics,
                            int maxInFlight, ActiveRequests active, ChunkedWriteHandler streamWriter) {
        this.active = active;
        this.streamWriter = streamWriter;
        this.router = router;
        this.connector = connector;
        this.metrics = metrics;
        this.maxInFlight = maxInFlight;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        metrics.clientConnectionOpened();
        sequencer = new ResponseSequencer(ctx.channel(), streamWriter);
        work = new ConnectionWork(active, () -> ctx.executor().execute(() -> updateAutoRead(ctx)));
        backends = connector.openSession(ctx.channel().eventLoop(), new BackendListener() {
            @Override
            public void writabilityChanged(boolean writable) {
                backendsWritable = writable;
                updateAutoRead(ctx);
            }
        });
        client = new ClientContext(backends, new PartitionWriteOrder(), work, ctx.alloc(),
                String.valueOf(ctx.channel().remoteAddress()), ctx.channel());
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf frame = (ByteBuf) msg;
        if (!ctx.channel().isActive()) {
            // Decoded from the same read after the connection was closed: nobody is left to answer,
            // and handling each would log one line per frame (a 512 KiB read can hold 131072 frames).
            frame.release();
            return;
        }
        RequestFrame request;
        try {
            request = RequestFrame.parse(frame);
        } catch (MalformedRequestException e) {
            frame.release();
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
        String description = request.toString();
        response.whenComplete((buf, error) -> {
            if (ctx.executor().inEventLoop()) {
                finish(ctx, slot, description, request, started, buf, error);
            } else {
                ctx.executor().execute(() -> finish(ctx, slot, description, request, started, buf, error));
            }
        });
    }

    private void finish(ChannelHandlerContext ctx, ResponseSequencer.Slot slot, String description,
                        RequestFrame request, long started, ReferenceCounted response, Throwable error) {
        if (response instanceof ResponseStream stream) {
            // Still arriving: it counts as in flight, and a graceful drain waits, until its last byte is out.
            stream.onClose(() -> {
                work.finished();
                updateAutoRead(ctx);
            });
        } else {
            work.finished();
        }
        metrics.requestCompleted(request.apiKey(), System.nanoTime() - started, error != null);
        if (error != null) {
            Throwable cause = error.getCause() != null && error instanceof java.util.concurrent.CompletionException
                    ? error.getCause() : error;
            if (cause instanceof MalformedRequestException malformed) {
                reject(ctx, malformed.reason(), malformed.getMessage());
            } else {
                LOG.warn("Closing client {}: request {} failed: {}", client.remote(), description, cause.toString());
                ctx.close();
            }
            sequencer.complete(slot, null);
            return;
        }
        sequencer.complete(slot, response);
        updateAutoRead(ctx);
    }

    private void reject(ChannelHandlerContext ctx, String reason, String message) {
        metrics.frameRejected(reason);
        LOG.warn("Closing client {}: {}", ctx.channel().remoteAddress(), message);
        ctx.close();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        updateAutoRead(ctx);
        // Slow client: stop pulling responses from its brokers too, so memory stays bounded.
        backends.setAutoRead(ctx.channel().isWritable());
        ctx.fireChannelWritabilityChanged();
    }

    private void updateAutoRead(ChannelHandlerContext ctx) {
        boolean read = sequencer.pending() < maxInFlight && work.running() < maxInFlight && ctx.channel().isWritable()
                && backendsWritable;
        if (ctx.channel().config().isAutoRead() != read) {
            ctx.channel().config().setAutoRead(read);
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof IdleStateEvent) {
            metrics.idleConnectionClosed();
            LOG.info("Closing idle client {}", ctx.channel().remoteAddress());
            ctx.close();
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof TooLongFrameException) {
            reject(ctx, "oversized", "frame rejected: " + cause.getMessage());
        } else if (cause instanceof CorruptedFrameException) {
            reject(ctx, "malformed", "frame rejected: " + cause.getMessage());
        } else {
            LOG.warn("Closing client {} after an error: {}", ctx.channel().remoteAddress(), cause.toString());
            ctx.close();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        metrics.clientConnectionClosed();
        sequencer.close();
        // Requests already read still reach their brokers, as they would had the client stayed.
        work.whenIdle(backends::close);
        ctx.fireChannelInactive();
    }
}
