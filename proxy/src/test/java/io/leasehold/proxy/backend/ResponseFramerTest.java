package io.leasehold.proxy.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ResponseFramerTest {
    private static final int STREAMED = 7;

    private static byte[] frame(int correlationId, int bodyBytes) {
        byte[] body = new byte[bodyBytes];
        for (int i = 0; i < body.length; i++) {
            body[i] = (byte) (i * 31 + correlationId);
        }
        return ByteBufUtil.getBytes(EmbeddedBackend.responseFrame(correlationId, body));
    }

    private static EmbeddedChannel framer(int maxFrameBytes) {
        return new EmbeddedChannel(new ResponseFramer(maxFrameBytes, Set.of(STREAMED)::contains));
    }

    /** Feeds {@code bytes} cut at {@code cut}, and collects what the framer passes on. */
    private static List<Object> feed(byte[] bytes, int cut) {
        EmbeddedChannel channel = framer(1 << 20);
        channel.writeInbound(Unpooled.wrappedBuffer(bytes, 0, cut));
        channel.writeInbound(Unpooled.wrappedBuffer(bytes, cut, bytes.length - cut));
        List<Object> out = new ArrayList<>();
        for (Object o = channel.readInbound(); o != null; o = channel.readInbound()) {
            out.add(o);
        }
        channel.finishAndReleaseAll();
        return out;
    }

    @Test
    void passesOtherFramesOnWholeWithoutLengthPrefixWhereverTheSocketCutsThem() {
        byte[] two = concat(frame(1, 50), frame(2, 0));
        for (int cut = 0; cut <= two.length; cut++) {
            List<Object> out = feed(two, cut);
            assertThat(out).as("cut at %d", cut).hasSize(2).allMatch(ByteBuf.class::isInstance);
            ByteBuf first = (ByteBuf) out.get(0);
            ByteBuf second = (ByteBuf) out.get(1);
            assertThat(ByteBufUtil.getBytes(first)).isEqualTo(java.util.Arrays.copyOfRange(two, 4, 58));
            assertThat(second.readableBytes()).isEqualTo(4);
            assertThat(second.getInt(0)).isEqualTo(2);
            first.release();
            second.release();
        }
    }

    @Test
    void streamsSelectedFramesPieceByPieceAsTheyArriveWhereverTheSocketCutsThem() {
        byte[] streamed = frame(STREAMED, 100);
        byte[] after = frame(3, 10);
        byte[] both = concat(streamed, after);
        for (int cut = 0; cut <= both.length; cut++) {
            List<Object> out = feed(both, cut);
            ByteArrayOutputStream reassembled = new ByteArrayOutputStream();
            int chunks = 0;
            ByteBuf whole = null;
            for (Object o : out) {
                if (o instanceof ResponseChunk chunk) {
                    assertThat(chunk.first()).as("cut at %d", cut).isEqualTo(chunks == 0);
                    assertThat(whole).as("the streamed frame comes first").isNull();
                    reassembled.writeBytes(ByteBufUtil.getBytes(chunk.bytes()));
                    chunk.bytes().release();
                    chunks++;
                    if (chunk.last()) {
                        assertThat(reassembled.toByteArray()).isEqualTo(streamed);
                    }
                } else {
                    whole = (ByteBuf) o;
                }
            }
            assertThat(reassembled.toByteArray()).as("cut at %d", cut).isEqualTo(streamed);
            // Nothing is passed on before the correlation id is in; after that, every read is.
            boolean splitInsideBody = cut >= 8 && cut < streamed.length;
            assertThat(chunks).as("cut at %d", cut).isEqualTo(splitInsideBody ? 2 : 1);
            assertThat(whole).as("the frame after it is passed on whole").isNotNull();
            assertThat(ByteBufUtil.getBytes(whole)).isEqualTo(java.util.Arrays.copyOfRange(after, 4, after.length));
            whole.release();
        }
    }

    @Test
    void rejectsLengthsTooShortForACorrelationId() {
        EmbeddedChannel channel = framer(1 << 20);
        assertThatThrownBy(() -> channel.writeInbound(Unpooled.buffer().writeInt(-5).writeInt(1)))
                .isInstanceOf(CorruptedFrameException.class).hasMessageContaining("-5");
        channel.finishAndReleaseAll();
    }

    @Test
    void rejectsFramesAboveTheLimitBeforeBufferingThem() {
        EmbeddedChannel channel = framer(1000);
        assertThatThrownBy(() -> channel.writeInbound(Unpooled.buffer().writeInt(1001).writeInt(1)))
                .isInstanceOf(TooLongFrameException.class).hasMessageContaining("1001");
        channel.finishAndReleaseAll();
    }

    /**
     * A frame arriving over many reads, behind an earlier frame still held by its reader, is gathered
     * in one buffer sized for it, not in one grown step by step (doubling: 131,072 bytes for this one).
     */
    @Test
    void gathersAFrameArrivingInManyReadsInOneBufferSizedForIt() {
        byte[] held = frame(1, 10);
        byte[] large = frame(2, 65_536);
        byte[] both = concat(held, large);
        EmbeddedChannel channel = framer(1 << 20);
        int read = 1_000;
        for (int at = 0; at < both.length; at += read) {
            ByteBuf piece = channel.alloc().directBuffer(read);
            channel.writeInbound(piece.writeBytes(both, at, Math.min(read, both.length - at)));
        }
        ByteBuf first = channel.readInbound();
        ByteBuf second = channel.readInbound();
        try {
            assertThat(ByteBufUtil.getBytes(second)).isEqualTo(java.util.Arrays.copyOfRange(large, 4, large.length));
            assertThat(root(second).capacity()).as("the buffer the frame was gathered in")
                    .isLessThan(large.length + 1_000);
        } finally {
            first.release();
            second.release();
            channel.finishAndReleaseAll();
        }
    }

    @Test
    void aStreamedFrameWhoseHeadArrivesSplitIsNotGivenRoomForAllOfIt() {
        byte[] held = frame(1, 10);
        byte[] streamed = frame(STREAMED, 1 << 19);
        EmbeddedChannel channel = framer(1 << 20);
        int headPart = 6;
        ByteBuf first = channel.alloc().directBuffer(held.length + headPart)
                .writeBytes(held).writeBytes(streamed, 0, headPart);
        channel.writeInbound(first);
        ByteBuf second = channel.alloc().directBuffer(1_000).writeBytes(streamed, headPart, 1_000 - headPart);
        channel.writeInbound(second);
        ByteBuf whole = channel.readInbound();
        ResponseChunk chunk = channel.readInbound();
        try {
            assertThat(chunk.first()).isTrue();
            assertThat(root(chunk.bytes()).capacity()).as("the buffer the streamed frame's first piece is in")
                    .isLessThan(10_000);
        } finally {
            whole.release();
            chunk.bytes().release();
            channel.finishAndReleaseAll();
        }
    }

    /** The buffer a frame is a view of (through the leak detector's wrapper and the slice). */
    private static ByteBuf root(ByteBuf view) {
        ByteBuf root = view;
        while (root.unwrap() != null) {
            root = root.unwrap();
        }
        return root;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] all = new byte[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
