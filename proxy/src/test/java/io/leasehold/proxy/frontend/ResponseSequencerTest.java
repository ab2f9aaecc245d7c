package io.leasehold.proxy.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ResponseSequencerTest {

    private static ByteBuf text(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.UTF_8);
    }

    private static String read(EmbeddedChannel channel) {
        ByteBuf buf = channel.readOutbound();
        if (buf == null) {
            return null;
        }
        try {
            return buf.toString(StandardCharsets.UTF_8);
        } finally {
            buf.release();
        }
    }

    @Test
    void writesResponsesInRequestOrderWhenTheyCompleteOutOfOrder() {
        EmbeddedChannel channel = new EmbeddedChannel();
        ResponseSequencer sequencer = new ResponseSequencer(channel);
        ResponseSequencer.Slot first = sequencer.reserve();
        ResponseSequencer.Slot second = sequencer.reserve();
        ResponseSequencer.Slot third = sequencer.reserve();

        sequencer.complete(third, text("3"));
        sequencer.complete(second, text("2"));
        assertThat(read(channel)).isNull();

        sequencer.complete(first, text("1"));
        assertThat(read(channel)).isEqualTo("1");
        assertThat(read(channel)).isEqualTo("2");
        assertThat(read(channel)).isEqualTo("3");
        assertThat(sequencer.pending()).isZero();
        channel.finishAndReleaseAll();
    }

    @Test
    void skipsRequestsThatGetNoResponse() {
        EmbeddedChannel channel = new EmbeddedChannel();
        ResponseSequencer sequencer = new ResponseSequencer(channel);
        ResponseSequencer.Slot acksZero = sequencer.reserve();
        ResponseSequencer.Slot next = sequencer.reserve();

        sequencer.complete(next, text("after"));
        assertThat(read(channel)).isNull();
        sequencer.complete(acksZero, null);
        assertThat(read(channel)).isEqualTo("after");
        channel.finishAndReleaseAll();
    }

    @Test
    void releasesResponsesThatArriveAfterTheConnectionClosed() {
        EmbeddedChannel channel = new EmbeddedChannel();
        ResponseSequencer sequencer = new ResponseSequencer(channel);
        ResponseSequencer.Slot first = sequencer.reserve();
        ResponseSequencer.Slot second = sequencer.reserve();
        ByteBuf queued = text("queued");
        sequencer.complete(second, queued);
        sequencer.close();
        ByteBuf late = text("late");
        sequencer.complete(first, late);

        assertThat(queued.refCnt()).isZero();
        assertThat(late.refCnt()).isZero();
        assertThat(read(channel)).isNull();
        channel.finishAndReleaseAll();
    }
}
