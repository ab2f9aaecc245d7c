package io.leasehold.proxy.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import java.nio.ByteOrder;

/**
 * Cuts Kafka frames (a 4-byte big-endian length, then the message) and strips the length.
 * The length is read as the protocol's signed int32, so a negative length is reported as such
 * instead of as a huge unsigned value; lengths above {@code maxFrameBytes} fail at once,
 * before the body is buffered. Once the connection is closed, the rest of what was read is
 * dropped rather than cut into frames nobody will answer.
 */
public final class KafkaFrameDecoder extends LengthFieldBasedFrameDecoder {
    private static final int LENGTH_BYTES = 4;

    public KafkaFrameDecoder(int maxFrameBytes) {
        super(maxFrameBytes, 0, LENGTH_BYTES, 0, LENGTH_BYTES, true);
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
        return super.decode(ctx, in);
    }

    @Override
    protected long getUnadjustedFrameLength(ByteBuf buf, int offset, int length, ByteOrder order) {
        return buf.getInt(offset);
    }
}
