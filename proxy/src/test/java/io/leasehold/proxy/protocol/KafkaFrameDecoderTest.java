package io.leasehold.proxy.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;
import org.junit.jupiter.api.Test;

class KafkaFrameDecoderTest {

    @Test
    void cutsFramesAndStripsTheLength() {
        EmbeddedChannel channel = new EmbeddedChannel(new KafkaFrameDecoder(64));
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
        EmbeddedChannel channel = new EmbeddedChannel(new KafkaFrameDecoder(64));
        assertThatThrownBy(() -> channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {-1, -1, -1, -5, 1})))
                .isInstanceOf(CorruptedFrameException.class).hasMessageContaining("-5");
        channel.finishAndReleaseAll();
    }

    @Test
    void rejectsOversizedFramesBeforeBufferingThem() {
        EmbeddedChannel channel = new EmbeddedChannel(new KafkaFrameDecoder(64));
        assertThatThrownBy(() -> channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {0, 0, 1, 0, 1})))
                .isInstanceOf(TooLongFrameException.class).hasMessageContaining("exceeds 64");
        channel.finishAndReleaseAll();
    }
}
