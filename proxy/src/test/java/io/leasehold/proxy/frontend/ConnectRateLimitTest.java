package io.leasehold.proxy.frontend;

import static io.leasehold.proxy.frontend.KafkaWire.roundTrip;
import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.proxy.config.ProxyConfig;
import io.leasehold.proxy.config.ServerSslContextFactory;
import io.leasehold.proxy.request.MemoryBudget;
import io.leasehold.proxy.testing.TestCertificates;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A burst of connects beyond {@code limits.acceptsPerSecond} (on a TLS listener, beyond
 * {@code limits.tlsHandshakesPerSecond}) is closed at once and counted, while a client that
 * connected before keeps working.
 */
class ConnectRateLimitTest {
    private static final int RATE = 5;
    private static final int BURST = 40;

    @TempDir
    static Path certDir;
    private static TestCertificates certs;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private LoopbackListener listener;
    private int port;

    @BeforeAll
    static void makeCertificates() throws Exception {
        certs = TestCertificates.generate(certDir.resolve("ca"));
    }

    private void start(int acceptsPerSecond, int handshakesPerSecond, SslContext tls) throws InterruptedException {
        listener = new LoopbackListener(KafkaWire.ANSWER_EVERYTHING, registry, FrontendServer.Limits.builder()
                .maxFrameBytes(1024).maxConnections(1000).idleTimeout(Duration.ofSeconds(30)).maxInFlightPerConnection(8)
                .tlsHandshakeTimeout(Duration.ofSeconds(10)).maxConnectionsPerIp(1000)
                .firstRequestTimeout(Duration.ofSeconds(30)).frameCompletionTimeout(Duration.ofSeconds(30))
                .acceptsPerSecond(acceptsPerSecond).tlsHandshakesPerSecond(handshakesPerSecond)
                .maxPartitionsPerRequest(100).maxTopicsPerMetadataRequest(100).build(),
                new MemoryBudget(Long.MAX_VALUE), tls);
        port = listener.port();
    }

    @AfterEach
    void stop() {
        if (listener != null) {
            listener.close();
        }
    }

    private double refused(String reason) {
        Counter counter = registry.find("leasehold.client.connections.refused").tag("reason", reason).counter();
        return counter == null ? 0 : counter.count();
    }

    /** Opens {@link #BURST} connections at once; returns how many the proxy closed without a byte sent. */
    private int burstClosedAtOnce() throws IOException {
        List<Socket> burst = new ArrayList<>();
        try {
            for (int i = 0; i < BURST; i++) {
                burst.add(new Socket("127.0.0.1", port));
            }
            int closed = 0;
            for (Socket socket : burst) {
                socket.setSoTimeout(300);
                try {
                    if (socket.getInputStream().read() == -1) {
                        closed++;
                    }
                } catch (SocketTimeoutException stillOpen) {
                    // Admitted: it waits for a request.
                } catch (IOException reset) {
                    closed++;
                }
            }
            return closed;
        } finally {
            for (Socket socket : burst) {
                socket.close();
            }
        }
    }

    @Test
    void connectsBeyondTheAcceptRateAreClosedAtOnceWhileAnEstablishedClientKeepsWorking() throws Exception {
        start(RATE, 1000, null);
        try (Socket established = new Socket("127.0.0.1", port)) {
            established.setSoTimeout(10_000);
            assertThat(roundTrip(established, 1)).isEqualTo(1);

            int closed = burstClosedAtOnce();

            assertThat(closed).as("connects closed without being served").isGreaterThanOrEqualTo(BURST / 2);
            assertThat(refused("accept_rate")).isEqualTo(closed);
            assertThat(roundTrip(established, 2)).as("the established client still works").isEqualTo(2);
        }
    }

    @Test
    void tlsConnectsBeyondTheHandshakeRateAreClosedBeforeTheirHandshake() throws Exception {
        ProxyConfig.Listener listener = new ProxyConfig.Listener("127.0.0.1", 0, "127.0.0.1", 0,
                certs.cert(TestCertificates.SERVER), certs.key(TestCertificates.SERVER), null,
                ProxyConfig.ClientAuth.NONE);
        start(1000, RATE, new ServerSslContextFactory("test.yaml").create(listener));
        JdkSslContext client = (JdkSslContext) SslContextBuilder.forClient().sslProvider(SslProvider.JDK)
                .trustManager(certs.caCert().toFile()).build();
        try (SSLSocket established = (SSLSocket) client.context().getSocketFactory().createSocket("127.0.0.1", port)) {
            established.setSoTimeout(10_000);
            assertThat(roundTrip(established, 1)).isEqualTo(1);

            int closed = burstClosedAtOnce();

            assertThat(closed).as("connects closed before a handshake").isGreaterThanOrEqualTo(BURST / 2);
            assertThat(refused("tls_handshake_rate")).isEqualTo(closed);
            assertThat(refused("accept_rate")).isZero();
            assertThat(roundTrip(established, 2)).as("the established client still works").isEqualTo(2);
        }
    }
}
