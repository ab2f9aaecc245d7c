package io.leasehold.proxy.backend;

import io.leasehold.proxy.protocol.KafkaMessages;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * One TCP connection to one broker. Assigns its own correlation ids (so requests of many
 * clients never collide) and matches responses back to callers, either whole or, for requests
 * sent with {@link #sendStreaming}, as a {@link ResponseStream} that starts with the first bytes.
 * A request that outlives its deadline closes the connection: the broker answers a connection's
 * requests in order, so everything queued behind a hung request would hang too, and a fresh
 * connection is the only way to reach a broker that recovers. All state is confined to the
 * channel's event loop.
 */
final class BackendConnection extends ChannelInboundHandlerAdapter implements ResponseFramer.StreamSelector {
    private final String brokerName;
    private final int brokerId;
    private final BackendListener listener;
    private final Map<Integer, Pending> pending = new HashMap<>();
    /** Waiting for the moment no request is awaiting its answer. */
    private final List<CompletableFuture<Void>> idleWaiters = new ArrayList<>();
    private Channel channel;
    private int nextCorrelationId;
    /** The streamed response whose bytes are arriving, if any. */
    private ResponseStream current;
    /** Takes no new requests: its broker session is about to end (see {@link #retireAfter}). */
    private boolean retired;

    /**
     * A request waiting for its answer: whole ({@code frame}) or streamed ({@code stream}); its
     * API ({@code null} if not one kafka-clients knows) and when it was written, for the latency.
     */
    private record Pending(CompletableFuture<ByteBuf> frame, CompletableFuture<ResponseStream> stream,
                           ResponseInspector inspector, ScheduledFuture<?> timeout, ApiKeys api, long sentNanos) {
        void fail(Throwable cause) {
            timeout.cancel(false);
            (frame != null ? frame : stream).completeExceptionally(cause);
        }
    }

    BackendConnection(String brokerName, int brokerId, BackendListener listener) {
        this.brokerName = brokerName;
        this.brokerId = brokerId;
        this.listener = listener;
    }

    void attach(Channel channel) {
        this.channel = channel;
    }

    Channel channel() {
        return channel;
    }

    /**
     * After {@code delay}, stops taking new requests (its session hands them to a fresh
     * connection) and closes once the requests already on it are answered. Must be called on
     * the channel's event loop.
     */
    void retireAfter(Duration delay) {
        channel.eventLoop().schedule(() -> {
            retired = true;
            whenIdle().thenRun(channel::close);
        }, delay.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Whether new requests must go on another connection. */
    boolean retired() {
        return retired;
    }

    /**
     * Completes once no request on this connection awaits its answer (at once if none is): the
     * broker answers a connection's requests one at a time, so a request written before then
     * waits behind the earlier ones. Must be called on the channel's event loop.
     */
    CompletableFuture<Void> whenIdle() {
        if (pending.isEmpty() || !channel.isActive()) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> idle = new CompletableFuture<>();
        idleWaiters.add(idle);
        return idle;
    }

    private void answeredOne() {
        if (pending.isEmpty() && !idleWaiters.isEmpty()) {
            List<CompletableFuture<Void>> waiting = new ArrayList<>(idleWaiters);
            idleWaiters.clear();
            waiting.forEach(w -> w.complete(null));
        }
    }

    /**
     * Writes {@code request} (ownership taken) and completes with the response frame (owned by
     * the caller), or fails once {@code deadline} passes without one. Must be called on the
     * channel's event loop.
     */
    CompletableFuture<ByteBuf> send(ByteBuf request, Duration deadline) {
        CompletableFuture<ByteBuf> future = new CompletableFuture<>();
        write(request, deadline, future, null, null);
        return future;
    }

    /**
     * Like {@link #send}, but completes as soon as the response's first bytes arrive, with a
     * stream (owned by the caller) that receives the rest as it comes; {@code inspector} sees every
     * piece before it can be forwarded.
     */
    CompletableFuture<ResponseStream> sendStreaming(ByteBuf request, Duration deadline, ResponseInspector inspector) {
        CompletableFuture<ResponseStream> future = new CompletableFuture<>();
        write(request, deadline, null, future, inspector);
        return future;
    }

    private void write(ByteBuf request, Duration deadline, CompletableFuture<ByteBuf> frame,
                       CompletableFuture<ResponseStream> stream, ResponseInspector inspector) {
        if (!channel.isActive()) {
            request.release();
            (frame != null ? frame : stream).completeExceptionally(new BackendUnreachableException(
                    "connection to broker " + brokerName + " is closed", null));
            return;
        }
        int correlationId = nextCorrelationId++;
        if (nextCorrelationId == Integer.MAX_VALUE) {
            nextCorrelationId = 0;
        }
        KafkaMessages.withRequestCorrelationId(request, correlationId);
        ScheduledFuture<?> timeout = channel.eventLoop().schedule(() -> timedOut(correlationId, deadline),
                deadline.toMillis(), TimeUnit.MILLISECONDS);
        short apiKey = request.getShort(request.readerIndex());
        pending.put(correlationId, new Pending(frame, stream, inspector, timeout,
                ApiKeys.hasId(apiKey) ? ApiKeys.forId(apiKey) : null, System.nanoTime()));
        channel.writeAndFlush(request).addListener(written -> {
            if (!written.isSuccess()) {
                Pending p = pending.remove(correlationId);
                if (p != null) {
                    // A failed write may have put part of the frame on the wire: outcome unknown.
                    p.fail(new BackendOutcomeUnknownException(
                            "write to broker " + brokerName + " failed: " + written.cause(), false));
                    answeredOne();
                }
            }
        });
    }

    private void timedOut(int correlationId, Duration deadline) {
        Pending p = pending.remove(correlationId);
        if (p != null) {
            p.fail(new BackendOutcomeUnknownException("broker " + brokerName
                    + " did not answer within " + deadline.toMillis() + " ms", true));
            channel.close();
            answeredOne();
        }
    }

    @Override
    public boolean streams(int correlationId) {
        Pending p = pending.get(correlationId);
        return p != null && p.stream != null;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ResponseChunk chunk) {
            streamed(chunk);
            return;
        }
        ByteBuf frame = (ByteBuf) msg;
        if (frame.readableBytes() < 4) {
            frame.release();
            ctx.close();
            return;
        }
        Pending p = pending.remove(KafkaMessages.responseCorrelationId(frame));
        if (p == null) {
            // Late answer to a request that already timed out.
            frame.release();
            return;
        }
        p.timeout.cancel(false);
        answered(p);
        if (!p.frame.complete(frame)) {
            ReferenceCountUtil.release(frame);
        }
        answeredOne();
    }

    private void streamed(ResponseChunk chunk) {
        if (chunk.first()) {
            ByteBuf bytes = chunk.bytes();
            Pending p = pending.remove(bytes.getInt(bytes.readerIndex() + 4));
            ResponseStream stream = new ResponseStream(4L + bytes.getInt(bytes.readerIndex()),
                    p != null ? p.inspector : piece -> { });
            stream.append(bytes);
            current = chunk.last() ? null : stream;
            if (p == null) {
                stream.release();
                return;
            }
            p.timeout.cancel(false);
            answered(p);
            if (!p.stream.complete(stream)) {
                stream.release();
            }
            answeredOne();
            return;
        }
        current.append(chunk.bytes());
        if (chunk.last()) {
            current = null;
        }
    }

    private void answered(Pending p) {
        if (p.api != null) {
            listener.answered(brokerId, p.api, System.nanoTime() - p.sentNanos);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (current != null) {
            current.fail(new BackendOutcomeUnknownException(
                    "connection to broker " + brokerName + " closed in the middle of a response", false));
            current = null;
        }
        List<Pending> lost = new ArrayList<>(pending.values());
        pending.clear();
        for (Pending p : lost) {
            p.fail(new BackendOutcomeUnknownException(
                    "connection to broker " + brokerName + " closed before the response arrived", false));
        }
        answeredOne();
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }
}
