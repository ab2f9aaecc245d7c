package io.leasehold.proxy.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FrameSizeWriterTest {

    @Test
    void writesEachFrameBehindItsSizeAndCompletesTheCallersPromise() {
        EmbeddedChannel channel = new EmbeddedChannel(new FrameSizeWriter());
        ChannelFuture first = channel.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {7, 8, 9}));
        ChannelFuture second = channel.writeAndFlush(Unpooled.EMPTY_BUFFER);

        assertThat(outbound(channel)).containsExactly(0, 0, 0, 3, 7, 8, 9, 0, 0, 0, 0);
        assertThat(first.isSuccess()).isTrue();
        assertThat(second.isSuccess()).isTrue();
        channel.finishAndReleaseAll();
    }

    @Test
    void aWriteTheSocketRefusesFailsTheFramesPromiseQuietlyAndLeaksNothing() {
        List<ByteBuf> sizes = new ArrayList<>();
        EmbeddedChannel channel = new EmbeddedChannel(new RefusingSocket(), new FrameSizeWriter());
        channel.config().setAllocator(recording(sizes));
        ByteBuf frame = Unpooled.buffer().writeBytes(new byte[] {1, 2});

        ChannelFuture written = channel.writeAndFlush(frame);

        assertThat(written.cause()).as("the frame's promise reports the failed write").hasMessage("refused");
        assertThat(frame.refCnt()).isZero();
        assertThat(sizes).hasSize(1);
        assertThat(sizes.get(0).refCnt()).as("the size's buffer").isZero();
        // Rethrows anything fired through the pipeline: the frame's promise is the only report.
        channel.checkException();
        channel.finishAndReleaseAll();
    }

    @Test
    void passesMessagesOtherThanBuffersAsTheyAre() {
        EmbeddedChannel channel = new EmbeddedChannel(new FrameSizeWriter());
        channel.writeAndFlush("not a frame");
        assertThat((Object) channel.readOutbound()).isEqualTo("not a frame");
        assertThat((Object) channel.readOutbound()).isNull();
        channel.finishAndReleaseAll();
    }

    /** Stands for a socket that fails every write, as one reset by its peer does. */
    private static final class RefusingSocket extends ChannelOutboundHandlerAdapter {
        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            ReferenceCountUtil.release(msg);
            promise.setFailure(new IOException("refused"));
        }
    }

    private static List<Integer> outbound(EmbeddedChannel channel) {
        List<Integer> bytes = new ArrayList<>();
        for (ByteBuf buf = channel.readOutbound(); buf != null; buf = channel.readOutbound()) {
            while (buf.isReadable()) {
                bytes.add((int) buf.readByte());
            }
            buf.release();
        }
        return bytes;
    }

    /** Heap buffers only, each one kept in {@code made}. */
    private static AbstractByteBufAllocator recording(List<ByteBuf> made) {
        return new AbstractByteBufAllocator(false) {
            @Override
            protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
                ByteBuf buf = Unpooled.buffer(initialCapacity, maxCapacity);
                made.add(buf);
                return buf;
            }

            @Override
            protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
                return newHeapBuffer(initialCapacity, maxCapacity);
            }

            @Override
            public boolean isDirectBufferPooled() {
                return false;
            }
        };
    }
}
