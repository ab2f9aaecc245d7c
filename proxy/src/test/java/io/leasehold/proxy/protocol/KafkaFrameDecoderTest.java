package io.leasehold.proxy.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class KafkaFrameDecoderTest {

    @Test
    void cutsFramesAndStripsTheLength() {
        EmbeddedChannel channel = new EmbeddedChannel(new KafkaFrameDecoder(64, FrameCap.NONE));
        channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {0, 0, 0, 3, 7, 8, 9, 0, 0, 0, 1}));
        ByteBuf frame = channel.readInbound();
        try {
            assertThat(frame.readableBytes()).isEqualTo(3);
            assertThat(frame.getByte(0)).isEqualTo((byte) 7);
        } finally {
            frame.release();
        }
        assertThat((Object) channel.readInbound()).as("second frame still incomplete").isNull();
        channel.finishAndReleaseAll();
    }

    @Test
    void reportsANegativeLengthAsNegative() {
        EmbeddedChannel channel = new EmbeddedChannel(new KafkaFrameDecoder(64, FrameCap.NONE));
        assertThatThrownBy(() -> channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {-1, -1, -1, -5, 1})))
                .isInstanceOf(CorruptedFrameException.class).hasMessageContaining("-5");
        channel.finishAndReleaseAll();
    }

    @Test
    void rejectsOversizedFramesBeforeBufferingThem() {
        EmbeddedChannel channel = new EmbeddedChannel(new KafkaFrameDecoder(64, FrameCap.NONE));
        assertThatThrownBy(() -> channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {0, 0, 1, 0, 1})))
                .isInstanceOf(TooLongFrameException.class).hasMessageContaining("exceeds 64");
        channel.finishAndReleaseAll();
    }

    /**
     * A connection closed while one read still holds frames (here 512 KiB of zeros: 131072 empty
     * frames) gets no more of them: cutting them all would hold the event loop, and every other
     * connection on it, for seconds, and nobody is left to answer them.
     */
    @Test
    void stopsCuttingFramesOnceTheConnectionIsClosed() {
        AtomicInteger frames = new AtomicInteger();
        EmbeddedChannel channel = new EmbeddedChannel(new KafkaFrameDecoder(64, FrameCap.NONE),
                new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                frames.incrementAndGet();
                ((ByteBuf) msg).release();
                ctx.close();
            }
        });
        channel.writeInbound(Unpooled.wrappedBuffer(new byte[512 * 1024]));
        assertThat(frames.get()).isEqualTo(1);
        channel.finishAndReleaseAll();
    }
}
