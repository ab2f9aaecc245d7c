package io.leasehold.proxy.frontend;

import static io.leasehold.proxy.frontend.KafkaWire.apiVersionsRequest;
import static io.leasehold.proxy.frontend.KafkaWire.roundTrip;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.leasehold.proxy.request.RequestHandler;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.ReferenceCounted;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Sockets that are slow or silent on purpose cannot keep a connection slot: the deadlines for
 * the first request, for completing a frame and for idleness close them, bytes trickled one at
 * a time do not count as activity, a busy connection is not idle, and one client address holds
 * only its share of the slots.
 */
// Serial: asserts closes within 1.5 s timeouts, well before a 2.5 s one.
@Tag("serial")
class SlowClientLimitsTest {
    /** Far above a loaded machine's scheduling stalls, far below the trickle below. */
    private static final Duration FIRST_REQUEST = Duration.ofMillis(1500);
    private static final Duration FRAME_COMPLETION = Duration.ofMillis(1500);
    private static final Duration IDLE = Duration.ofMillis(2500);
    private static final long TRICKLE_PAUSE_MS = 250;
    private static final int PER_IP = 2;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private volatile RequestHandler handler = KafkaWire.ANSWER_EVERYTHING;
    private LoopbackListener listener;
    private FrontendServer server;
    private int port;

    @BeforeEach
    void start() throws InterruptedException {
        // Loads the request classes now: building the first request must not eat into the first-request deadline.
        apiVersionsRequest(0);
        listener = new LoopbackListener((request, client) -> handler.handle(request, client), registry,
                FrontendServer.Limits.builder().maxFrameBytes(1024).maxConnections(10).idleTimeout(IDLE)
                        .maxInFlightPerConnection(8).tlsHandshakeTimeout(Duration.ofSeconds(10))
                        .maxConnectionsPerIp(PER_IP).firstRequestTimeout(FIRST_REQUEST)
                        .frameCompletionTimeout(FRAME_COMPLETION).build());
        server = listener.server();
        port = listener.port();
    }

    @AfterEach
    void stop() {
        listener.close();
    }

    private double counted(String name, String reason) {
        Counter counter = registry.find(name).tag("reason", reason).counter();
        return counter == null ? 0 : counter.count();
    }

    /** True if the proxy closes or resets the socket within its read timeout; false if the timeout passes first. */
    private static boolean closedBeforeTimeout(Socket socket) throws IOException {
        try {
            return socket.getInputStream().read() == -1;
        } catch (SocketTimeoutException stillOpen) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }

    @Test
    void aConnectionThatSendsNoRequestIsClosedAtTheFirstRequestDeadline() throws IOException {
        try (Socket silent = new Socket("127.0.0.1", port)) {
            silent.setSoTimeout(10_000);
            long start = System.nanoTime();
            assertThat(closedBeforeTimeout(silent)).isTrue();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("closed well before the idle timeout")
                    .isLessThan(IDLE.multipliedBy(4));
        }
        assertThat(counted("leasehold.client.connections.timed.out", "first_request")).isEqualTo(1);
    }

    @Test
    void aFrameTrickledByteByByteIsClosedAtTheFrameCompletionDeadline() throws Exception {
        try (Socket trickler = new Socket("127.0.0.1", port)) {
            trickler.setSoTimeout(10_000);
            assertThat(roundTrip(trickler, 1)).isEqualTo(1);
            byte[] frame = apiVersionsRequest(2);
            OutputStream out = trickler.getOutputStream();
            // One byte every 250 ms takes about 5 s for this frame: past the frame deadline and the idle timeout.
            try {
                for (int i = 0; i < frame.length - 1; i++) {
                    out.write(frame[i]);
                    out.flush();
                    Thread.sleep(TRICKLE_PAUSE_MS);
                }
            } catch (IOException resetByTheProxy) {
                // Closed while trickling, as it should be.
            }
            assertThat(closedBeforeTimeout(trickler)).as("closed before the frame was complete").isTrue();
        }
        assertThat(counted("leasehold.client.connections.timed.out", "frame_completion")).isEqualTo(1);
        assertThat(registry.get("leasehold.client.connections.idle.closed").counter().count()).isZero();
    }

    @Test
    void aConnectionWithARequestInProgressIsNotIdle() throws Exception {
        CompletableFuture<ReferenceCounted> slowAnswer = new CompletableFuture<>();
        handler = (request, client) -> slowAnswer.thenApply(ignored -> KafkaWire.ANSWER_EVERYTHING.handle(request, client)
                .join());
        try (Socket waiting = new Socket("127.0.0.1", port)) {
            waiting.setSoTimeout(10_000);
            waiting.getOutputStream().write(apiVersionsRequest(7));
            Thread.sleep(IDLE.multipliedBy(3).toMillis());
            slowAnswer.complete(null);
            DataInputStream in = new DataInputStream(waiting.getInputStream());
            in.readInt();
            assertThat(in.readInt()).as("answered on the same connection").isEqualTo(7);
        }
        assertThat(registry.get("leasehold.client.connections.idle.closed").counter().count()).isZero();
    }

    @Test
    void aClientThatTakesNoneOfItsAnswersIsClosedAtTheFrameCompletionDeadline() throws Exception {
        handler = (request, client) -> {
            // 2 MiB per answer: eight of them overflow the socket buffers and the 1 MiB write mark.
            ByteBuf answer = Unpooled.buffer(2 << 20).writeInt(request.correlationId()).writeZero((2 << 20) - 4);
            request.release();
            return CompletableFuture.completedFuture(answer);
        };
        try (Socket sleeper = new Socket()) {
            sleeper.setReceiveBufferSize(4096);
            sleeper.connect(new InetSocketAddress("127.0.0.1", port));
            for (int i = 0; i < 8; i++) {
                sleeper.getOutputStream().write(apiVersionsRequest(i));
            }
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> counted("leasehold.client.connections.timed.out", "response_stalled") == 1);
        }
        assertThat(registry.get("leasehold.client.connections.idle.closed").counter().count()).isZero();
        assertThat(counted("leasehold.client.connections.timed.out", "frame_completion")).isZero();
    }

    @Test
    void anIdleConnectionIsClosedAfterTheIdleTimeout() throws IOException {
        try (Socket idle = new Socket("127.0.0.1", port)) {
            idle.setSoTimeout(10_000);
            assertThat(roundTrip(idle, 1)).isEqualTo(1);
            assertThat(closedBeforeTimeout(idle)).isTrue();
        }
        assertThat(registry.get("leasehold.client.connections.idle.closed").counter().count()).isEqualTo(1);
    }

    @Test
    void oneAddressGetsAtMostItsShareOfConnectionsWhileOthersStillConnect() throws IOException {
        InetAddress other = InetAddress.getByName("127.0.0.2");
        try (Socket a = new Socket("127.0.0.1", port); Socket b = new Socket("127.0.0.1", port);
             Socket c = new Socket("127.0.0.1", port); Socket elsewhere = new Socket()) {
            assertThat(roundTrip(a, 1)).isEqualTo(1);
            assertThat(roundTrip(b, 2)).isEqualTo(2);
            c.setSoTimeout(5_000);
            c.getOutputStream().write(apiVersionsRequest(3));
            assertThat(closedBeforeTimeout(c)).as("third connection from 127.0.0.1").isTrue();

            elsewhere.bind(new InetSocketAddress(other, 0));
            elsewhere.connect(new InetSocketAddress("127.0.0.1", port));
            assertThat(roundTrip(elsewhere, 4)).as("a connection from 127.0.0.2").isEqualTo(4);
        }
        assertThat(counted("leasehold.client.connections.refused", "max_connections_per_ip")).isEqualTo(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> server.connectionCount() == 0);
        try (Socket again = new Socket("127.0.0.1", port)) {
            assertThat(roundTrip(again, 5)).as("slots come back when connections close").isEqualTo(5);
        }
    }
}
