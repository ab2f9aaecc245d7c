package io.leasehold.proxy.frontend;

import static io.leasehold.proxy.frontend.KafkaWire.apiVersionsRequest;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.leasehold.proxy.admin.ProxyMetrics;
import io.leasehold.proxy.backend.BackendConnector;
import io.leasehold.proxy.backend.BackendListener;
import io.leasehold.proxy.backend.BackendOutcomeUnknownException;
import io.leasehold.proxy.request.RequestHandler;
import io.leasehold.routing.snapshot.BrokerAddress;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.ReferenceCounted;
import java.io.DataInputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A client that hangs up while the proxy still works for it, as an acks=0 producer does right
 * after its last send: the work it left behind still reaches the broker, and the broker
 * connection is closed once that work is done.
 */
class ClientHangUpTest {
    private static final byte[] PAYLOAD = {0, 0, 0, 0, 0, 0, 0, 9, 'l', 'e', 'f', 't'};

    private EventLoopGroup boss;
    private EventLoopGroup workers;
    private ServerSocket broker;
    private FrontendServer server;
    private final CompletableFuture<Void> clientGone = new CompletableFuture<>();
    private final CompletableFuture<Object> leftBehind = new CompletableFuture<>();

    @BeforeEach
    void start() throws Exception {
        boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        workers = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        broker = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        BrokerAddress address = new BrokerAddress(1, "127.0.0.1", broker.getLocalPort(), null);
        // Answers nothing (like acks=0) and sends PAYLOAD to the broker only after the client left.
        RequestHandler sendsAfterHangUp = (request, client) -> {
            request.release();
            CompletableFuture<?> work = clientGone.thenCompose(v ->
                    client.backends().send(address, Unpooled.wrappedBuffer(PAYLOAD.clone())));
            work.whenComplete((response, error) -> leftBehind.complete(error != null ? error : response));
            client.work().track(work);
            return CompletableFuture.<ReferenceCounted>completedFuture(null);
        };
        server = FrontendServer.builder("127.0.0.1", 0, boss, workers, sendsAfterHangUp,
                BackendConnector.builder(new BackendConnector.Settings(Duration.ofSeconds(1), Duration.ofSeconds(2),
                        Duration.ofSeconds(2), 1024), new BackendListener() { }).build(),
                new ProxyMetrics(new SimpleMeterRegistry()), FrontendServer.Limits.builder().maxFrameBytes(1024)
                        .maxConnections(3).idleTimeout(Duration.ofSeconds(30)).maxInFlightPerConnection(8)
                        .tlsHandshakeTimeout(Duration.ofSeconds(10)).build()).build();
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
        broker.close();
        workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void workLeftBehindByAClientThatHungUpStillReachesTheBroker() throws Exception {
        int port = server.start().getPort();
        try (Socket client = new Socket("127.0.0.1", port)) {
            client.getOutputStream().write(apiVersionsRequest(1));
            client.getOutputStream().flush();
            await().atMost(Duration.ofSeconds(5)).until(() -> server.connectionCount() == 1);
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> server.connectionCount() == 0);
        clientGone.complete(null);

        broker.setSoTimeout(5_000);
        try (Socket backend = broker.accept()) {
            backend.setSoTimeout(5_000);
            DataInputStream in = new DataInputStream(backend.getInputStream());
            byte[] frame = new byte[in.readInt()];
            in.readFully(frame);
            assertThat(Arrays.copyOfRange(frame, 8, frame.length)).as("the request the client left behind")
                    .isEqualTo(Arrays.copyOfRange(PAYLOAD, 8, PAYLOAD.length));
            // Unanswered, the request times out; then nothing is left and the connection closes.
            assertThat((Throwable) leftBehind.get(5, TimeUnit.SECONDS)).hasRootCauseInstanceOf(BackendOutcomeUnknownException.class);
            assertThat(in.read()).as("broker connection closed").isEqualTo(-1);
        }
    }
}
