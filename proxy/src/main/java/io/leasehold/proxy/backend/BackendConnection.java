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

/**
 * One TCP connection to one broker. Assigns its own correlation ids (so requests of many
 * clients never collide) and matches responses back to callers. All state is confined to the
 * channel's event loop.
 */
final class BackendConnection extends ChannelInboundHandlerAdapter {
    private final String brokerName;
    private final Duration requestTimeout;
    private final Map<Integer, Pending> pending = new HashMap<>();
    private Channel channel;
    private int nextCorrelationId;

    private record Pending(CompletableFuture<ByteBuf> future, ScheduledFuture<?> timeout) {
    }

    BackendConnection(String brokerName, Duration requestTimeout) {
        this.brokerName = brokerName;
        this.requestTimeout = requestTimeout;
    }

    void attach(Channel channel) {
        this.channel = channel;
    }

    Channel channel() {
        return channel;
    }

    int inFlight() {
        return pending.size();
    }

    /**
     * Writes {@code request} (ownership taken) and completes with the response frame (owned by
     * the caller). Must be called on the channel's event loop.
     */
    CompletableFuture<ByteBuf> send(ByteBuf request) {
        CompletableFuture<ByteBuf> future = new CompletableFuture<>();
        if (!channel.isActive()) {
            request.release();
            future.completeExceptionally(new BackendUnreachableException(
                    "connection to broker " + brokerName + " is closed", null));
            return future;
        }
        int correlationId = nextCorrelationId++;
        if (nextCorrelationId == Integer.MAX_VALUE) {
            nextCorrelationId = 0;
        }
        KafkaMessages.withRequestCorrelationId(request, correlationId);
        ScheduledFuture<?> timeout = channel.eventLoop().schedule(() -> timedOut(correlationId),
                requestTimeout.toMillis(), TimeUnit.MILLISECONDS);
        pending.put(correlationId, new Pending(future, timeout));
        channel.writeAndFlush(request).addListener(written -> {
            if (!written.isSuccess()) {
                Pending p = pending.remove(correlationId);
                if (p != null) {
                    p.timeout.cancel(false);
                    // A failed write may have put part of the frame on the wire: outcome unknown.
                    p.future.completeExceptionally(new BackendOutcomeUnknownException(
                            "write to broker " + brokerName + " failed: " + written.cause(), false));
                }
            }
        });
        return future;
    }

    private void timedOut(int correlationId) {
        Pending p = pending.remove(correlationId);
        if (p != null) {
            p.future.completeExceptionally(new BackendOutcomeUnknownException("broker " + brokerName
                    + " did not answer within " + requestTimeout.toMillis() + " ms", true));
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
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
        if (!p.future.complete(frame)) {
            ReferenceCountUtil.release(frame);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        List<Pending> lost = new ArrayList<>(pending.values());
        pending.clear();
        for (Pending p : lost) {
            p.timeout.cancel(false);
            p.future.completeExceptionally(new BackendOutcomeUnknownException(
                    "connection to broker " + brokerName + " closed before the response arrived", false));
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }
}
