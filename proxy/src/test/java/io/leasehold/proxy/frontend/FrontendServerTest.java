package io.leasehold.proxy.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.proxy.admin.ProxyMetrics;
import io.leasehold.proxy.backend.BackendConnector;
import io.leasehold.proxy.backend.BackendListener;
import io.leasehold.proxy.protocol.KafkaMessages;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.ReferenceCounted;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The client-facing listener alone, with a trivial in-test request handler: framing limits,
 * bad input handling and connection limits.
 */
class FrontendServerTest {
    private static final int MAX_FRAME = 1024;

    private EventLoopGroup boss;
    private EventLoopGroup workers;
    private FrontendServer server;
    private SimpleMeterRegistry registry;
    private int port;

    /** Answers every request with an empty ApiVersions response. */
    private static final RequestHandler ANSWER_EVERYTHING = (request, client) -> {
        try {
            return CompletableFuture.<ReferenceCounted>completedFuture(KafkaMessages.encodeResponse(client.alloc(), ApiKeys.API_VERSIONS,
                    (short) 0, request.correlationId(), new ApiVersionsResponseData()));
        } finally {
            request.release();
        }
    };

    @BeforeEach
    void start() throws InterruptedException {
        boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        workers = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        registry = new SimpleMeterRegistry();
        server = new FrontendServer("127.0.0.1", 0, boss, workers, ANSWER_EVERYTHING,
                new BackendConnector(Duration.ofSeconds(1), Duration.ofSeconds(1), MAX_FRAME, new BackendListener() { }),
                new ProxyMetrics(registry), new FrontendServer.Limits(MAX_FRAME, 3, Duration.ofSeconds(2), 8));
        port = server.start().getPort();
    }

    @AfterEach
    void stop() {
        server.close();
        workers.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
        boss.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
    }

    private static byte[] apiVersionsRequest(int correlationId) {
        ByteBuf request = KafkaMessages.encodeRequest(ByteBufAllocator.DEFAULT, ApiKeys.API_VERSIONS, (short) 0,
                "test", new ApiVersionsRequestData());
        try {
            KafkaMessages.withRequestCorrelationId(request, correlationId);
            byte[] bytes = new byte[4 + request.readableBytes()];
            request.getBytes(request.readerIndex(), bytes, 4, request.readableBytes());
            int length = request.readableBytes();
            bytes[0] = (byte) (length >>> 24);
            bytes[1] = (byte) (length >>> 16);
            bytes[2] = (byte) (length >>> 8);
            bytes[3] = (byte) length;
            return bytes;
        } finally {
            request.release();
        }
    }

    private int roundTrip(Socket socket, int correlationId) throws IOException {
        socket.getOutputStream().write(apiVersionsRequest(correlationId));
        DataInputStream in = new DataInputStream(socket.getInputStream());
        int length = in.readInt();
        int answered = in.readInt();
        in.skipNBytes(length - 4);
        return answered;
    }

    private boolean closedAfter(byte[] bytes) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(5_000);
            socket.getOutputStream().write(bytes);
            try {
                return socket.getInputStream().read() == -1;
            } catch (SocketException reset) {
                return true;
            }
        }
    }

    private static byte[] lengthThen(int length, byte[] rest) throws IOException {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(length);
        out.write(rest);
        return bytes.toByteArray();
    }

    @Test
    void answersPipelinedRequestsInOrder() throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            for (int i = 0; i < 5; i++) {
                socket.getOutputStream().write(apiVersionsRequest(100 + i));
            }
            DataInputStream in = new DataInputStream(socket.getInputStream());
            for (int i = 0; i < 5; i++) {
                int length = in.readInt();
                assertThat(in.readInt()).isEqualTo(100 + i);
                in.skipNBytes(length - 4);
            }
        }
    }

    @Test
    void closesConnectionsThatSendBadFramesAndKeepsServingOthers() throws IOException {
        try (Socket healthy = new Socket("127.0.0.1", port)) {
            assertThat(roundTrip(healthy, 1)).isEqualTo(1);

            assertThat(closedAfter(lengthThen(MAX_FRAME + 1, new byte[8]))).as("oversized").isTrue();
            assertThat(closedAfter(lengthThen(-1, new byte[8]))).as("negative length").isTrue();
            assertThat(closedAfter(lengthThen(8, new byte[] {0x03, (byte) 0xe7, 0, 0, 0, 0, 0, 1})))
                    .as("unknown api key 999").isTrue();
            assertThat(closedAfter(lengthThen(4, new byte[] {0, 18, 0, 0}))).as("frame shorter than a header").isTrue();
            byte[] noise = new byte[2048];
            new Random(7).nextBytes(noise);
            noise[0] = 0x40;
            assertThat(closedAfter(noise)).as("random bytes").isTrue();

            assertThat(roundTrip(healthy, 2)).isEqualTo(2);
        }
        assertThat(registry.get("leasehold.frames.rejected").counters()).isNotEmpty();
    }

    @Test
    void closesIdleConnections() throws IOException {
        try (Socket idle = new Socket("127.0.0.1", port)) {
            assertThat(roundTrip(idle, 1)).isEqualTo(1);
            idle.setSoTimeout(10_000);
            assertThat(idle.getInputStream().read()).as("closed by the idle timeout").isEqualTo(-1);
        }
        assertThat(registry.get("leasehold.client.connections.idle.closed").counter().count()).isEqualTo(1.0);
    }

    @Test
    void refusesConnectionsBeyondTheLimit() throws IOException {
        try (Socket a = new Socket("127.0.0.1", port); Socket b = new Socket("127.0.0.1", port);
             Socket c = new Socket("127.0.0.1", port)) {
            assertThat(roundTrip(a, 1)).isEqualTo(1);
            assertThat(roundTrip(b, 2)).isEqualTo(2);
            assertThat(roundTrip(c, 3)).isEqualTo(3);
            assertThat(closedAfter(apiVersionsRequest(4))).as("fourth connection").isTrue();
        }
    }
}
