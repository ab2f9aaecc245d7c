package io.leasehold.proxy.frontend;

import static io.leasehold.proxy.frontend.KafkaWire.apiVersionsRequest;
import static io.leasehold.proxy.frontend.KafkaWire.closedByServer;
import static io.leasehold.proxy.frontend.KafkaWire.lengthThen;
import static io.leasehold.proxy.frontend.KafkaWire.roundTrip;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.Socket;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The client-facing listener alone, with a trivial in-test request handler: framing limits,
 * bad input handling and connection limits.
 */
class FrontendServerTest {
    private static final int MAX_FRAME = 1024;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private LoopbackListener listener;
    private int port;

    @BeforeEach
    void start() throws InterruptedException {
        listener = new LoopbackListener(KafkaWire.ANSWER_EVERYTHING, registry,
                TestLimits.builder().maxFrameBytes(MAX_FRAME).maxConnections(3)
                        .idleTimeout(Duration.ofSeconds(2)).build());
        port = listener.port();
    }

    @AfterEach
    void stop() {
        listener.close();
    }

    private boolean closedAfter(byte[] bytes) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(5_000);
            socket.getOutputStream().write(bytes);
            return closedByServer(socket);
        }
    }

    @Test
    void answersPipelinedRequestsInOrder() throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            KafkaWire.assertPipelinedAnswersInOrder(socket);
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
