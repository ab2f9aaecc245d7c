package io.leasehold.proxy.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import java.nio.ByteOrder;

/**
 * Cuts Kafka frames (a 4-byte big-endian length, then the message) and strips the length.
 * The length is read as the protocol's signed int32, so a negative length is reported as such
 * instead of as a huge unsigned value; lengths above {@code maxFrameBytes} fail at once,
 * before the body is buffered. A {@link FrameCap} may lower the limit for a while (before a
 * SASL client has authenticated); a length over it fails at once too, and what was read is
 * dropped. Once the connection is closed, the rest of what was read is dropped rather than cut
 * into frames nobody will answer.
 */
public final class KafkaFrameDecoder extends LengthFieldBasedFrameDecoder {
    private static final int LENGTH_BYTES = 4;

    private final FrameCap cap;

    public KafkaFrameDecoder(int maxFrameBytes, FrameCap cap) {
        super(maxFrameBytes, 0, LENGTH_BYTES, 0, LENGTH_BYTES, true);
        this.cap = cap;
    }

    /** Whether bytes of a frame not yet complete are buffered, waiting for the rest. */
    public boolean partialFrameBuffered() {
        return actualReadableBytes() > 0;
    }

    /** Bytes of a frame not yet complete, buffered while waiting for the rest. */
    public int partialFrameBytes() {
        return actualReadableBytes();
    }

    @Override
    protected Object decode(ChannelHandlerContext ctx, ByteBuf in) throws Exception {
        if (!ctx.channel().isActive()) {
            // One 512 KiB read can hold 131072 empty frames: cutting them after a close held the
            // event loop, and every connection on it, for seconds.
            in.skipBytes(in.readableBytes());
            return null;
        }
        if (in.readableBytes() >= LENGTH_BYTES) {
            int length = in.getInt(in.readerIndex());
            int limit = cap.maxFrameBytes(ctx.channel());
            if (length > limit) {
                // Nothing of it is kept: the connection is closed for it, whatever else arrives.
                in.skipBytes(in.readableBytes());
                throw new FrameCapExceededException(cap.reason(), "frame of " + length + " bytes "
                        + cap.describe() + " (at most " + limit + ")");
            }
        }
        return super.decode(ctx, in);
    }

    @Override
    protected long getUnadjustedFrameLength(ByteBuf buf, int offset, int length, ByteOrder order) {
        return buf.getInt(offset);
    }
}
