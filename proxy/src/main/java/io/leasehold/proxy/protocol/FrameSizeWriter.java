package io.leasehold.proxy.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.VoidChannelPromise;

/**
 * Writes each outgoing Kafka frame behind its 4-byte size, as Netty's {@code LengthFieldPrepender}
 * does, without its per-frame cost: the prepender emits two messages, so Netty made a promise for
 * each and combined them into the caller's on every frame. Here the size goes out under a promise
 * that reports nothing, and the caller's promise rides on the frame itself. The two share their
 * fate: they are queued in order on the same channel, and a channel that cannot take the size
 * cannot take the frame behind it either. Messages other than buffers pass as they are.
 */
public final class FrameSizeWriter extends ChannelOutboundHandlerAdapter {
    private ChannelPromise ignored;

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        // Not ctx.voidPromise(): that one fires a failed write through the pipeline as an exception,
        // and the frame's own promise already reports it.
        ignored = new VoidChannelPromise(ctx.channel(), false);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (!(msg instanceof ByteBuf frame)) {
            ctx.write(msg, promise);
            return;
        }
        ctx.write(ctx.alloc().buffer(Integer.BYTES).writeInt(frame.readableBytes()), ignored);
        ctx.write(frame, promise);
    }
}
