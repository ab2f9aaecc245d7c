package io.leasehold.proxy.backend;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.stream.ChunkedInput;
import io.netty.util.AbstractReferenceCounted;
import io.netty.util.ReferenceCounted;
import java.util.ArrayDeque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A broker's response frame that is forwarded while it is still arriving (cut-through), for
 * large responses the proxy does not need to read, such as a single-owner Fetch. It holds the
 * whole frame's bytes, length prefix included, in the pieces the broker's socket delivered them;
 * written to a client channel with a {@link io.netty.handler.stream.ChunkedWriteHandler}, each
 * piece goes out as soon as it is in and the client can take it. Event-loop confined: the
 * backend and the client connection share one loop.
 *
 * <p>If the broker connection breaks mid-frame, the next read fails and the client connection
 * must be closed: part of the frame may already be on the wire.
 */
public final class ResponseStream extends AbstractReferenceCounted implements ChunkedInput<ByteBuf> {
    private static final Logger LOG = LoggerFactory.getLogger(ResponseStream.class);
    private static final int LENGTH_BYTES = 4;

    private final long length;
    private final ResponseInspector inspector;
    private final ArrayDeque<ByteBuf> pieces = new ArrayDeque<>();
    private long received;
    private long handedOut;
    private Throwable failure;
    private boolean discarded;
    private Runnable onData = () -> { };
    private Runnable onClose = () -> { };

    ResponseStream(long length, ResponseInspector inspector) {
        this.length = length;
        this.inspector = inspector;
    }

    /** Adds the next piece (ownership taken), after the inspector saw it, and wakes the writer. */
    void append(ByteBuf piece) {
        if (discarded || failure != null) {
            piece.release();
            return;
        }
        try {
            inspector.inspect(piece);
        } catch (RuntimeException e) {
            // Bytes the inspector could not vouch for must not reach the client.
            LOG.warn("streamed response dropped: its inspector failed", e);
            piece.release();
            fail(e);
            return;
        }
        received += piece.readableBytes();
        pieces.addLast(piece);
        onData.run();
    }

    /** The broker connection broke before the frame was complete. */
    void fail(Throwable cause) {
        failure = cause;
        onData.run();
    }

    /** Overwrites the response's correlation id; only before anything was handed out. */
    public ResponseStream withCorrelationId(int correlationId) {
        if (handedOut > 0 || pieces.isEmpty()) {
            throw new IllegalStateException("correlation id can only be set before the frame is forwarded");
        }
        ByteBuf first = pieces.peekFirst();
        first.setInt(first.readerIndex() + LENGTH_BYTES, correlationId);
        return this;
    }

    /** Called, on the event loop, whenever new bytes or a failure arrive (the writer's resume). */
    public void onData(Runnable listener) {
        this.onData = listener;
    }

    /**
     * Called once, on the event loop, when the stream is done with: fully written, failed, or
     * dropped unwritten.
     */
    public void onClose(Runnable listener) {
        this.onClose = listener;
    }

    @Override
    public boolean isEndOfInput() {
        return handedOut == length;
    }

    @Override
    public ByteBuf readChunk(ByteBufAllocator allocator) throws Exception {
        if (failure != null) {
            throw new BackendOutcomeUnknownException("response stream broken after " + received + " of " + length
                    + " bytes: " + failure.getMessage(), false);
        }
        if (pieces.isEmpty()) {
            return null;
        }
        ByteBuf chunk;
        if (pieces.size() == 1) {
            chunk = pieces.pollFirst();
        } else {
            CompositeByteBuf all = allocator.compositeDirectBuffer(pieces.size());
            while (!pieces.isEmpty()) {
                all.addComponent(true, pieces.pollFirst());
            }
            chunk = all;
        }
        handedOut += chunk.readableBytes();
        return chunk;
    }

    @Deprecated
    @Override
    public ByteBuf readChunk(ChannelHandlerContext ctx) throws Exception {
        return readChunk(ctx.alloc());
    }

    @Override
    public long length() {
        return length;
    }

    @Override
    public long progress() {
        return handedOut;
    }

    /** The writer is done with the stream (finished, failed or discarded): drop what is left. */
    @Override
    public void close() {
        while (!pieces.isEmpty()) {
            pieces.pollFirst().release();
        }
        if (!discarded) {
            discarded = true;
            onClose.run();
        }
    }

    @Override
    protected void deallocate() {
        close();
    }

    @Override
    public ReferenceCounted touch(Object hint) {
        return this;
    }

    @Override
    public String toString() {
        return "ResponseStream(" + handedOut + "/" + received + "/" + length + " bytes)";
    }
}
