package io.leasehold.proxy.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.proxy.backend.EmbeddedBackend;
import io.leasehold.proxy.backend.ResponseStream;
import io.leasehold.proxy.request.MemoryBudget;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.stream.ChunkedWriteHandler;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ResponseSequencerTest {
    private final ChunkedWriteHandler writer = new ChunkedWriteHandler();
    private final EmbeddedChannel channel = new EmbeddedChannel(writer);
    private final MemoryBudget budget = new MemoryBudget(1 << 20);
    private final ResponseSequencer sequencer = new ResponseSequencer(channel, writer, budget);

    @AfterEach
    void releaseWhatIsLeft() {
        channel.finishAndReleaseAll();
    }

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
    }

    @Test
    void answersCountAgainstTheMemoryBudgetUntilTheSocketTookThemOrTheConnectionClosed() {
        ResponseSequencer.Slot first = sequencer.reserve();
        ResponseSequencer.Slot second = sequencer.reserve();
        ResponseSequencer.Slot third = sequencer.reserve();

        sequencer.complete(second, text("12345"));
        assertThat(budget.used()).as("ready, waiting for the answer before it").isEqualTo(5);
        sequencer.complete(first, text("123"));
        assertThat(budget.used()).as("both written").isZero();

        sequencer.complete(third, text("1234567"));
        assertThat(budget.used()).isZero();
        ResponseSequencer.Slot fourth = sequencer.reserve();
        ResponseSequencer.Slot fifth = sequencer.reserve();
        sequencer.complete(fifth, text("12"));
        assertThat(budget.used()).isEqualTo(2);
        sequencer.close();
        assertThat(budget.used()).as("dropped with the connection").isZero();
        sequencer.complete(fourth, text("late"));
        assertThat(budget.used()).isZero();
    }

    @Test
    void skipsRequestsThatGetNoResponse() {
        ResponseSequencer.Slot acksZero = sequencer.reserve();
        ResponseSequencer.Slot next = sequencer.reserve();

        sequencer.complete(next, text("after"));
        assertThat(read(channel)).isNull();
        sequencer.complete(acksZero, null);
        assertThat(read(channel)).isEqualTo("after");
    }

    @Test
    void releasesResponsesThatArriveAfterTheConnectionClosed() {
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
    }

    @Test
    void forwardsAStreamedResponseAsItArrivesAndKeepsLaterOnesBehindIt() {
        ResponseSequencer.Slot streamed = sequencer.reserve();
        ResponseSequencer.Slot after = sequencer.reserve();
        try (EmbeddedBackend broker = new EmbeddedBackend(1 << 20)) {
            CompletableFuture<ResponseStream> stream = broker.sendStreaming();
            ByteBuf frame = EmbeddedBackend.responseFrame(broker.lastCorrelationId(), new byte[100]);
            broker.brokerSends(frame.readRetainedSlice(50));

            sequencer.complete(streamed, stream.join());
            sequencer.complete(after, text("after"));
            ByteBuf head = channel.readOutbound();
            assertThat(head.readableBytes()).as("the first bytes go out before the rest has arrived").isEqualTo(50);
            head.release();
            assertThat((Object) channel.readOutbound()).as("the next response waits for the stream").isNull();

            broker.brokerSends(frame.readRetainedSlice(frame.readableBytes()));
            frame.release();
            ByteBuf tail = channel.readOutbound();
            assertThat(tail.readableBytes()).isEqualTo(58);
            tail.release();
            assertThat(read(channel)).isEqualTo("after");
        }
    }

    @Test
    void closesTheClientWhenAStreamedResponseBreaksHalfWay() {
        try (EmbeddedBackend broker = new EmbeddedBackend(1 << 20)) {
            CompletableFuture<ResponseStream> stream = broker.sendStreaming();
            ByteBuf frame = EmbeddedBackend.responseFrame(broker.lastCorrelationId(), new byte[100]);
            broker.brokerSends(frame.readRetainedSlice(50));
            frame.release();
            sequencer.complete(sequencer.reserve(), stream.join());
            ByteBuf head = channel.readOutbound();
            head.release();

            broker.brokerDisconnects();

            assertThat(channel.isOpen()).as("a half-sent frame leaves the connection unusable").isFalse();
        }
    }
}
