package io.leasehold.proxy.admin;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Closes an admin connection that has not delivered a whole request within a fixed time of being
 * ready for one: of being opened, or of its previous answer having been written. Unlike an idle
 * timeout, bytes trickling in do not extend it, so a client sending a byte now and then cannot keep
 * a connection. Sits after the HTTP aggregator, where a request arrives whole and an answer leaves
 * whole. One instance per connection.
 */
final class RequestDeadline extends ChannelDuplexHandler {
    private final Duration deadline;
    private ScheduledFuture<?> timer;

    RequestDeadline(Duration deadline) {
        this.deadline = deadline;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        arm(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof FullHttpRequest) {
            disarm();
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof FullHttpResponse) {
            // The next request is due once this answer is out (unless the connection closes after it).
            promise.addListener(written -> {
                if (written.isSuccess() && ctx.channel().isActive()) {
                    arm(ctx);
                }
            });
        }
        ctx.write(msg, promise);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        disarm();
        ctx.fireChannelInactive();
    }

    private void arm(ChannelHandlerContext ctx) {
        disarm();
        timer = ctx.executor().schedule(() -> ctx.close(), deadline.toNanos(), TimeUnit.NANOSECONDS);
    }

    private void disarm() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }
}
