package io.leasehold.proxy.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class StreamedResponseTest {

    private static byte[] drain(ResponseStream stream) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (ByteBuf chunk = stream.readChunk(ByteBufAllocator.DEFAULT); chunk != null;
                chunk = stream.readChunk(ByteBufAllocator.DEFAULT)) {
            out.writeBytes(ByteBufUtil.getBytes(chunk));
            chunk.release();
        }
        return out.toByteArray();
    }

    @Test
    void streamStartsWithTheFirstBytesAndForwardsTheRestAsItArrives() throws Exception {
        try (EmbeddedBackend broker = new EmbeddedBackend(1 << 20)) {
            CompletableFuture<ResponseStream> future = broker.sendStreaming();
            int id = broker.lastCorrelationId();
            byte[] frame = ByteBufUtil.getBytes(EmbeddedBackend.responseFrame(id, new byte[3000]));

            broker.brokerSends(io.netty.buffer.Unpooled.wrappedBuffer(frame, 0, 1000));
            assertThat(future).as("complete with the first bytes, long before the frame is").isDone();
            ResponseStream stream = future.join().withCorrelationId(77);
            AtomicInteger wakeUps = new AtomicInteger();
            stream.onData(wakeUps::incrementAndGet);
            assertThat(stream.length()).isEqualTo(frame.length);
            byte[] head = drain(stream);
            assertThat(head).hasSize(1000);
            assertThat(stream.isEndOfInput()).isFalse();

            broker.brokerSends(io.netty.buffer.Unpooled.wrappedBuffer(frame, 1000, frame.length - 1000));
            assertThat(wakeUps).hasValue(1);
            byte[] tail = drain(stream);
            assertThat(stream.isEndOfInput()).isTrue();

            byte[] expected = frame.clone();
            expected[4] = 0;
            expected[5] = 0;
            expected[6] = 0;
            expected[7] = 77;
            byte[] forwarded = Arrays.copyOf(head, frame.length);
            System.arraycopy(tail, 0, forwarded, head.length, tail.length);
            assertThat(forwarded).as("the broker's bytes with the client's correlation id").isEqualTo(expected);
            stream.close();
        }
    }

    @Test
    void responsesAfterAStreamedOneAreFramedAsUsual() throws Exception {
        try (EmbeddedBackend broker = new EmbeddedBackend(1 << 20)) {
            CompletableFuture<ResponseStream> streamed = broker.sendStreaming();
            int first = broker.lastCorrelationId();
            CompletableFuture<ByteBuf> whole = broker.send();
            int second = broker.lastCorrelationId();

            ByteBuf both = io.netty.buffer.Unpooled.wrappedBuffer(
                    EmbeddedBackend.responseFrame(first, new byte[500]),
                    EmbeddedBackend.responseFrame(second, new byte[] {1, 2, 3}));
            broker.brokerSends(both);

            ResponseStream stream = streamed.join();
            assertThat(drain(stream)).hasSize(508);
            assertThat(stream.isEndOfInput()).isTrue();
            ByteBuf frame = whole.join();
            assertThat(frame.readableBytes()).isEqualTo(7);
            assertThat(frame.getInt(frame.readerIndex())).isEqualTo(second);
            frame.release();
            stream.close();
        }
    }

    @Test
    void aConnectionBrokenMidFrameFailsTheStreamOnItsNextRead() throws Exception {
        try (EmbeddedBackend broker = new EmbeddedBackend(1 << 20)) {
            CompletableFuture<ResponseStream> future = broker.sendStreaming();
            int id = broker.lastCorrelationId();
            ByteBuf frame = EmbeddedBackend.responseFrame(id, new byte[2000]);
            broker.brokerSends(frame.readRetainedSlice(600));
            frame.release();
            ResponseStream stream = future.join();
            AtomicInteger wakeUps = new AtomicInteger();
            stream.onData(wakeUps::incrementAndGet);

            broker.brokerDisconnects();

            assertThat(wakeUps).as("the writer is woken to see the failure").hasValue(1);
            assertThatThrownBy(() -> stream.readChunk(ByteBufAllocator.DEFAULT))
                    .isInstanceOf(BackendOutcomeUnknownException.class)
                    .hasMessageContaining("600 of 2008 bytes")
                    .hasMessageContaining("closed in the middle of a response");
            stream.close();
        }
    }

    @Test
    void aStreamDroppedByItsReaderReleasesWhatArrivesLater() {
        try (EmbeddedBackend broker = new EmbeddedBackend(1 << 20)) {
            CompletableFuture<ResponseStream> future = broker.sendStreaming();
            int id = broker.lastCorrelationId();
            ByteBuf frame = EmbeddedBackend.responseFrame(id, new byte[2000]);
            broker.brokerSends(frame.readRetainedSlice(600));
            future.join().release();

            ByteBuf rest = frame.readRetainedSlice(frame.readableBytes());
            frame.release();
            broker.brokerSends(rest);

            assertThat(rest.refCnt()).as("the rest of the frame is read off the socket and dropped").isZero();
            assertThat(broker.isOpen()).isTrue();
        }
    }

    @Test
    void tellsItsOwnerOnceWhenItIsDoneWith() throws Exception {
        try (EmbeddedBackend broker = new EmbeddedBackend(1 << 20)) {
            CompletableFuture<ResponseStream> future = broker.sendStreaming();
            broker.brokerSends(EmbeddedBackend.responseFrame(broker.lastCorrelationId(), new byte[10]));
            ResponseStream stream = future.join();
            AtomicInteger closed = new AtomicInteger();
            stream.onClose(closed::incrementAndGet);
            assertThat(drain(stream)).hasSize(18);
            assertThat(closed).as("not before the writer is done").hasValue(0);

            stream.close();
            stream.release();

            assertThat(closed).as("closed by the writer, then released: told once").hasValue(1);
        }
    }
}
