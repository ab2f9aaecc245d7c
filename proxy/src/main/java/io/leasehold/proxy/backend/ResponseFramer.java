package io.leasehold.proxy.backend;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;
import java.util.List;

/**
 * Cuts a broker's responses into frames. A frame whose request asked for streaming is passed on
 * in {@link ResponseChunk}s as soon as its bytes arrive (length prefix included, never buffered
 * whole); every other frame is passed on whole as a {@link ByteBuf} without its length prefix.
 * Streaming is decided per frame from its correlation id, which follows the length. A whole frame
 * is gathered in one buffer sized for it as soon as its length is known (see {@link #cumulate}).
 */
final class ResponseFramer extends ByteToMessageDecoder {
    private static final int LENGTH_BYTES = 4;
    private static final int FRAME_HEAD_BYTES = LENGTH_BYTES + 4;

    /** Says whether the response with a correlation id should be streamed. */
    interface StreamSelector {
        boolean streams(int correlationId);
    }

    private final int maxFrameBytes;
    private final StreamSelector selector;
    /** Bytes of the streamed frame in progress not yet passed on; 0 between frames. */
    private long streamRemaining;

    ResponseFramer(int maxFrameBytes, StreamSelector selector) {
        this.maxFrameBytes = maxFrameBytes;
        this.selector = selector;
        setCumulator(this::cumulate);
    }

    /**
     * Appends a read to the bytes not yet framed. Netty's merge cumulator grows its buffer step by
     * step (each step copies everything gathered so far, a multi-megabyte Fetch answer several
     * times over) and copies it whole again while a slice of an earlier frame still holds it; here
     * a buffer that must grow is replaced once by one that holds the whole frame being gathered,
     * so each byte of a frame is copied once.
     */
    private ByteBuf cumulate(ByteBufAllocator alloc, ByteBuf cumulation, ByteBuf in) {
        if (!cumulation.isReadable()) {
            cumulation.release();
            return in;
        }
        try {
            int incoming = in.readableBytes();
            if (cumulation.refCnt() == 1 && !cumulation.isReadOnly() && cumulation.writableBytes() >= incoming) {
                return cumulation.writeBytes(in);
            }
            int gathered = cumulation.readableBytes() + incoming;
            ByteBuf whole = alloc.buffer(Math.max(gathered, pendingFrameBytes(cumulation)));
            whole.writeBytes(cumulation).writeBytes(in);
            cumulation.release();
            return whole;
        } finally {
            in.release();
        }
    }

    /**
     * The size of the whole frame (length prefix included) that {@code gathered} starts, or 0 if
     * not known yet. Known only once the correlation id is in too: until then the frame may be one
     * that is streamed, passed on piece by piece and never gathered whole (a streamed frame's head
     * never waits here longer, {@link #decode} passes it on at once).
     */
    private int pendingFrameBytes(ByteBuf gathered) {
        if (streamRemaining > 0 || gathered.readableBytes() < FRAME_HEAD_BYTES) {
            return 0;
        }
        int length = gathered.getInt(gathered.readerIndex());
        return length < 4 || length > maxFrameBytes ? 0 : LENGTH_BYTES + length;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        while (true) {
            if (streamRemaining > 0) {
                int n = (int) Math.min(streamRemaining, in.readableBytes());
                if (n == 0) {
                    return;
                }
                streamRemaining -= n;
                out.add(new ResponseChunk(in.readRetainedSlice(n), false, streamRemaining == 0));
                continue;
            }
            if (in.readableBytes() < LENGTH_BYTES) {
                return;
            }
            int length = in.getInt(in.readerIndex());
            if (length < 4 || length > maxFrameBytes) {
                // The byte stream cannot be framed any more; drop it, the connection gets closed.
                in.skipBytes(in.readableBytes());
            }
            if (length < 4) {
                throw new CorruptedFrameException("response frame length " + length
                        + " is too short for a correlation id");
            }
            if (length > maxFrameBytes) {
                throw new TooLongFrameException("response frame of " + length + " bytes exceeds the limit of "
                        + maxFrameBytes);
            }
            if (in.readableBytes() < FRAME_HEAD_BYTES) {
                return;
            }
            if (selector.streams(in.getInt(in.readerIndex() + LENGTH_BYTES))) {
                long whole = (long) length + LENGTH_BYTES;
                int n = (int) Math.min(whole, in.readableBytes());
                streamRemaining = whole - n;
                out.add(new ResponseChunk(in.readRetainedSlice(n), true, streamRemaining == 0));
                continue;
            }
            if (in.readableBytes() < LENGTH_BYTES + length) {
                return;
            }
            in.skipBytes(LENGTH_BYTES);
            out.add(in.readRetainedSlice(length));
        }
    }
}
