package io.leasehold.proxy.backend;

import io.leasehold.proxy.protocol.KafkaMessages;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * One backend connection (framer plus {@link BackendConnection}) over an in-memory channel, for
 * unit tests: the test plays the broker by feeding response bytes in pieces of its choosing.
 */
public final class EmbeddedBackend implements AutoCloseable {
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    /** The broker id the connection reports its answers under. */
    public static final int BROKER_ID = 1;

    private final BackendConnection connection;
    private final EmbeddedChannel channel;

    public EmbeddedBackend(int maxFrameBytes) {
        this(maxFrameBytes, new BackendListener() { });
    }

    /** A connection that reports its answers to {@code listener}. */
    public EmbeddedBackend(int maxFrameBytes, BackendListener listener) {
        connection = new BackendConnection("test-broker", BROKER_ID, listener);
        channel = new EmbeddedChannel(new ResponseFramer(maxFrameBytes, connection), connection);
        connection.attach(channel);
    }

    /** Sends a small request whose response will be streamed; returns the future stream. */
    public CompletableFuture<ResponseStream> sendStreaming() {
        return connection.sendStreaming(request(), DEADLINE, piece -> { });
    }

    /** Sends a small request whose response will be delivered whole. */
    public CompletableFuture<ByteBuf> send() {
        return send(DEADLINE);
    }

    /** Sends a small request that the connection waits {@code deadline} for. */
    public CompletableFuture<ByteBuf> send(Duration deadline) {
        return connection.send(request(), deadline);
    }

    /** Lets the channel's clock run {@code time} ahead and runs the timers that came due. */
    public void timePasses(Duration time) {
        channel.advanceTimeBy(time.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
        channel.runScheduledPendingTasks();
    }

    /** The correlation id the connection gave the request it wrote last. */
    public int lastCorrelationId() {
        ByteBuf written = channel.readOutbound();
        try {
            return written.getInt(written.readerIndex() + 4);
        } finally {
            written.release();
        }
    }

    /** A response frame as a broker writes it: length prefix, correlation id, {@code body}. */
    public static ByteBuf responseFrame(int correlationId, byte[] body) {
        ByteBuf frame = Unpooled.buffer(8 + body.length);
        frame.writeInt(4 + body.length).writeInt(correlationId).writeBytes(body);
        return frame;
    }

    /** The broker's socket delivers {@code bytes} (ownership taken). */
    public void brokerSends(ByteBuf bytes) {
        channel.writeInbound(bytes);
    }

    /** The broker's connection breaks. */
    public void brokerDisconnects() {
        channel.close();
    }

    public boolean isOpen() {
        return channel.isOpen();
    }

    private ByteBuf request() {
        return KafkaMessages.encodeRequest(channel.alloc(), ApiKeys.API_VERSIONS, (short) 0, "test",
                new ApiVersionsRequestData());
    }

    @Override
    public void close() {
        channel.finishAndReleaseAll();
    }
}
