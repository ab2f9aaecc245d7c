package io.leasehold.proxy.frontend;

import static io.leasehold.proxy.frontend.KafkaWire.apiVersionsRequest;
import static io.leasehold.proxy.frontend.KafkaWire.closedByServer;
import static io.leasehold.proxy.frontend.KafkaWire.lengthThen;
import static io.leasehold.proxy.frontend.KafkaWire.roundTrip;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.leasehold.proxy.admin.ProxyMetrics;
import io.leasehold.proxy.backend.BackendConnector;
import io.leasehold.proxy.backend.BackendListener;
import io.leasehold.proxy.config.ConfigException;
import io.leasehold.proxy.config.ProxyConfig;
import io.leasehold.proxy.config.ServerSslContextFactory;
import io.leasehold.proxy.testing.TestCertificates;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client-facing listener with TLS, against real JDK TLS sockets and certificates made with
 * openssl for this class: requests over TLS, the listener's limits applied to decrypted traffic,
 * the client certificate policies, and failed handshakes closed and counted without disturbing
 * other connections.
 */
class FrontendTlsTest {
    private static final int MAX_FRAME = 1024;
    private static final int MAX_CONNECTIONS = 3;

    @TempDir
    static Path certDir;
    private static TestCertificates certs;
    /** A second, unrelated CA: its client certificate must not get in. */
    private static TestCertificates strangers;

    private EventLoopGroup boss;
    private EventLoopGroup workers;
    private FrontendServer server;
    private SimpleMeterRegistry registry;
    private int port;

    @BeforeAll
    static void makeCertificates() throws Exception {
        certs = TestCertificates.generate(certDir.resolve("ca"));
        strangers = TestCertificates.generate(certDir.resolve("other-ca"));
    }

    private void start(ProxyConfig.ClientAuth clientAuth) throws ConfigException, InterruptedException {
        start(clientAuth, Duration.ofSeconds(10));
    }

    private void start(ProxyConfig.ClientAuth clientAuth, Duration handshakeTimeout)
            throws ConfigException, InterruptedException {
        ProxyConfig.Listener listener = new ProxyConfig.Listener("127.0.0.1", 0, "127.0.0.1", 0,
                certs.cert(TestCertificates.SERVER), certs.key(TestCertificates.SERVER),
                clientAuth == ProxyConfig.ClientAuth.NONE ? null : certs.caCert(), clientAuth);
        boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        workers = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        registry = new SimpleMeterRegistry();
        SslContext context = new ServerSslContextFactory("test.yaml").create(listener);
        server = FrontendServer.builder("127.0.0.1", 0, boss, workers, KafkaWire.ANSWER_EVERYTHING,
                        BackendConnector.builder(new BackendConnector.Settings(Duration.ofSeconds(1),
                                Duration.ofSeconds(1), Duration.ofSeconds(1), MAX_FRAME), new BackendListener() { })
                                .build(),
                        new ProxyMetrics(registry), TestLimits.builder().maxFrameBytes(MAX_FRAME)
                                .maxConnections(MAX_CONNECTIONS).idleTimeout(Duration.ofSeconds(2))
                                .tlsHandshakeTimeout(handshakeTimeout).build())
                .tls(() -> context)
                .build();
        port = server.start().getPort();
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
            workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /** A TLS client trusting the test CA, presenting the client certificate of {@code identity} if given. */
    private SSLSocket tlsClient(TestCertificates identity) throws IOException {
        SslContextBuilder builder = SslContextBuilder.forClient().sslProvider(SslProvider.JDK).trustManager(certs.caCert().toFile());
        if (identity != null) {
            builder.keyManager(identity.cert(TestCertificates.CLIENT).toFile(), identity.key(TestCertificates.CLIENT).toFile());
        }
        JdkSslContext context = (JdkSslContext) builder.build();
        SSLSocket socket = (SSLSocket) context.context().getSocketFactory().createSocket("127.0.0.1", port);
        socket.setSoTimeout(10_000);
        return socket;
    }

    /** Connects, sends a request and reports whether the server ended the connection instead of answering. */
    private boolean refused(TestCertificates identity) {
        try (SSLSocket socket = tlsClient(identity)) {
            socket.getOutputStream().write(apiVersionsRequest(1));
            return closedByServer(socket);
        } catch (IOException handshakeFailed) {
            return true;
        }
    }

    private double handshakeFailures(String reason) {
        Counter counter = registry.find("leasehold.client.tls.handshake.failures").tag("reason", reason).counter();
        return counter == null ? 0 : counter.count();
    }

    @Test
    void answersPipelinedRequestsInOrderOverTls() throws Exception {
        start(ProxyConfig.ClientAuth.NONE);
        try (SSLSocket socket = tlsClient(null)) {
            KafkaWire.assertPipelinedAnswersInOrder(socket);
            assertThat(socket.getSession().getProtocol()).startsWith("TLS");
        }
        assertThat(registry.find("leasehold.client.tls.handshake.failures").counters()).isEmpty();
    }

    @Test
    void plaintextClientIsClosedAndCountedWhileTlsConnectionsGoOn() throws Exception {
        start(ProxyConfig.ClientAuth.NONE);
        try (SSLSocket healthy = tlsClient(null)) {
            assertThat(roundTrip(healthy, 1)).isEqualTo(1);

            try (Socket plaintext = new Socket("127.0.0.1", port)) {
                plaintext.setSoTimeout(10_000);
                plaintext.getOutputStream().write(apiVersionsRequest(7));
                assertThat(closedByServer(plaintext)).as("a plaintext Kafka request on the TLS listener").isTrue();
            }

            await().atMost(Duration.ofSeconds(10)).until(() -> handshakeFailures("not_tls") == 1);
            assertThat(roundTrip(healthy, 2)).as("the TLS connection is unaffected").isEqualTo(2);
        }
        assertThat(registry.find("leasehold.frames.rejected").counters()).as("plaintext never reaches the framing")
                .isEmpty();
    }

    @Test
    void connectionsClosedBeforeAnyHandshakeAreCountedAsClosed() throws Exception {
        start(ProxyConfig.ClientAuth.NONE);
        // Like a load balancer's TCP health check: connect, then go away (FIN, then RST).
        new Socket("127.0.0.1", port).close();
        try (Socket reset = new Socket("127.0.0.1", port)) {
            reset.setSoLinger(true, 0);
        }

        await().atMost(Duration.ofSeconds(10)).until(() -> handshakeFailures("closed") == 2);
        assertThat(handshakeFailures("rejected") + handshakeFailures("not_tls")).isZero();
    }

    @Test
    void clientsThatNeverFinishTheHandshakeAreClosedAtTheHandshakeTimeout() throws Exception {
        start(ProxyConfig.ClientAuth.NONE, Duration.ofMillis(300));
        try (Socket stalled = new Socket("127.0.0.1", port)) {
            stalled.setSoTimeout(10_000);
            // Connected, but never sends a ClientHello. Whatever the server sends, it must then hang up
            // (a read timeout here would mean it never did).
            try {
                stalled.getInputStream().readAllBytes();
            } catch (java.net.SocketException reset) {
                // Hung up with a reset: closed as well.
            }
        }

        await().atMost(Duration.ofSeconds(10)).until(() -> handshakeFailures("timeout") == 1);
        assertThat(registry.find("leasehold.client.connections.idle.closed").counter())
                .as("closed by the 300ms handshake timeout, not by the 2s idle timeout")
                .satisfiesAnyOf(c -> assertThat(c).isNull(), c -> assertThat(c.count()).isZero());
    }

    @Test
    void oversizedFrameOverTlsClosesOnlyThatConnection() throws Exception {
        start(ProxyConfig.ClientAuth.NONE);
        try (SSLSocket healthy = tlsClient(null); SSLSocket offender = tlsClient(null)) {
            assertThat(roundTrip(healthy, 1)).isEqualTo(1);

            offender.getOutputStream().write(lengthThen(MAX_FRAME + 1, new byte[8]));

            assertThat(closedByServer(offender)).as("frame over limits.maxFrameBytes, decrypted").isTrue();
            assertThat(roundTrip(healthy, 2)).isEqualTo(2);
        }
        assertThat(registry.get("leasehold.frames.rejected").tag("reason", "oversized").counter().count()).isEqualTo(1);
    }

    @Test
    void idleTlsConnectionsAreClosed() throws Exception {
        start(ProxyConfig.ClientAuth.NONE);
        try (SSLSocket idle = tlsClient(null)) {
            assertThat(roundTrip(idle, 1)).isEqualTo(1);

            assertThat(closedByServer(idle)).as("closed by the 2s idle timeout").isTrue();
        }
        assertThat(registry.get("leasehold.client.connections.idle.closed").counter().count()).isEqualTo(1);
    }

    @Test
    void connectionsBeyondTheLimitAreRefusedBeforeTheHandshake() throws Exception {
        start(ProxyConfig.ClientAuth.NONE);
        try (SSLSocket a = tlsClient(null); SSLSocket b = tlsClient(null); SSLSocket c = tlsClient(null)) {
            assertThat(roundTrip(a, 1) + roundTrip(b, 2) + roundTrip(c, 3)).isEqualTo(6);

            assertThat(refused(null)).as("connection %d", MAX_CONNECTIONS + 1).isTrue();
        }
        assertThat(registry.get("leasehold.client.connections.refused").tag("reason", "max_connections").counter()
                .count()).isEqualTo(1);
        assertThat(registry.find("leasehold.client.tls.handshake.failures").counters())
                .as("refused before any TLS handler existed").isEmpty();
    }

    @Test
    void requiredClientAuthAdmitsOnlyCertificatesOfTheConfiguredCa() throws Exception {
        start(ProxyConfig.ClientAuth.REQUIRED);
        try (SSLSocket member = tlsClient(certs)) {
            assertThat(roundTrip(member, 1)).isEqualTo(1);

            assertThat(refused(null)).as("no client certificate").isTrue();
            assertThat(refused(strangers)).as("a certificate of another CA").isTrue();

            await().atMost(Duration.ofSeconds(10)).until(() -> handshakeFailures("rejected") == 2);
            assertThat(roundTrip(member, 2)).isEqualTo(2);
        }
    }

    @Test
    void requestedClientAuthAdmitsClientsWithoutCertificateButVerifiesOnesSent() throws Exception {
        start(ProxyConfig.ClientAuth.REQUESTED);
        try (SSLSocket anonymous = tlsClient(null); SSLSocket member = tlsClient(certs)) {
            assertThat(roundTrip(anonymous, 1)).isEqualTo(1);
            assertThat(roundTrip(member, 2)).isEqualTo(2);
            assertThat(member.getSession().getLocalCertificates()).as("the client certificate was sent").hasSize(1);
        }
        assertThat(refused(strangers)).as("a certificate of another CA").isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> handshakeFailures("rejected") == 1);
    }
}
