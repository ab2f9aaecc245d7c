package io.leasehold.proxy.security;

import static io.leasehold.proxy.security.SaslGateTest.bare;
import static io.leasehold.proxy.security.SaslGateTest.closedByServer;
import static io.leasehold.proxy.security.SaslGateTest.frame;
import static io.leasehold.proxy.security.SaslGateTest.mutate;
import static io.leasehold.proxy.security.SaslGateTest.read;
import static io.leasehold.proxy.security.SaslGateTest.writeAndDrain;
import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.proxy.admin.ProxyMetrics;
import io.leasehold.proxy.backend.BackendConnector;
import io.leasehold.proxy.backend.BackendListener;
import io.leasehold.proxy.frontend.FrontendServer;
import io.leasehold.proxy.protocol.KafkaMessages;
import io.leasehold.proxy.request.RequestHandler;
import io.leasehold.proxy.testing.TestTokens;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.ReferenceCounted;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.jose4j.jwk.RsaJsonWebKey;
import org.jose4j.jwt.JwtClaims;
import org.jose4j.jwt.NumericDate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * OAUTHBEARER through the SASL gate on a real listener over raw sockets: a good token lets the
 * connection through as its subject with the token's expiry as the session lifetime; a refused
 * token gets RFC 7628's {@code {"status":"invalid_token"}} and, after the client's %x01,
 * SASL_AUTHENTICATION_FAILED and a close; fuzzed OAUTHBEARER frames authenticate nobody.
 */
class OAuthBearerGateTest {
    private static final int MAX_FRAME = 2 * 1024 * 1024;
    private static final RsaJsonWebKey KEY = TestTokens.newKey("gate-key");
    private static final RsaJsonWebKey UNKNOWN_KEY = TestTokens.newKey("unknown-key");

    @TempDir
    Path dir;
    private EventLoopGroup boss;
    private EventLoopGroup workers;
    private FrontendServer server;
    private SimpleMeterRegistry registry;
    private final List<ApiKeys> routed = new CopyOnWriteArrayList<>();
    private final List<KafkaPrincipal> principals = new CopyOnWriteArrayList<>();
    private int port;

    private final RequestHandler router = (request, client) -> {
        try {
            routed.add(request.apiKey());
            principals.add(client.principal());
            return CompletableFuture.<ReferenceCounted>completedFuture(KafkaMessages.encodeResponse(client.alloc(),
                    request.apiKey(), request.version(), request.correlationId(), new MetadataResponseData()));
        } finally {
            request.release();
        }
    };

    private void startServer(Duration maxReauth) throws Exception {
        JwksFile jwks = JwksFile.load(new TestTokens().publish(KEY).writeJwks(dir.resolve("jwks.json")));
        boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        workers = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        registry = new SimpleMeterRegistry();
        SaslGate gate = new SaslGate(router, new SaslSettings(List.of("OAUTHBEARER"), null,
                new OAuthBearerSettings(jwks, TestTokens.ISSUER, List.of(TestTokens.AUDIENCE), "sub",
                        Duration.ofSeconds(30)), maxReauth), new AuthenticationMetrics(registry));
        server = FrontendServer.builder("127.0.0.1", 0, boss, workers, gate,
                BackendConnector.builder(new BackendConnector.Settings(Duration.ofSeconds(1), Duration.ofSeconds(1),
                        Duration.ofSeconds(1), MAX_FRAME), new BackendListener() { }).build(),
                new ProxyMetrics(registry), FrontendServer.Limits.builder().maxFrameBytes(MAX_FRAME).maxConnections(50)
                        .idleTimeout(Duration.ofSeconds(10)).maxInFlightPerConnection(8)
                        .tlsHandshakeTimeout(Duration.ofSeconds(10)).build()).build();
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

    /** The RFC 7628 client initial response carrying {@code jwt}. */
    private static byte[] bearer(String jwt) {
        return ("n,,\u0001auth=Bearer " + jwt + "\u0001\u0001").getBytes(StandardCharsets.UTF_8);
    }

    private Socket connect() throws IOException {
        Socket socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(5_000);
        return socket;
    }

    private static SaslAuthenticateResponseData login(Socket socket, byte[] token) throws IOException {
        socket.getOutputStream().write(frame(ApiKeys.SASL_HANDSHAKE, (short) 1, 1,
                new SaslHandshakeRequestData().setMechanism("OAUTHBEARER")));
        assertThat(((SaslHandshakeResponseData) read(socket, ApiKeys.SASL_HANDSHAKE, (short) 1)).errorCode())
                .isEqualTo(Errors.NONE.code());
        socket.getOutputStream().write(frame(ApiKeys.SASL_AUTHENTICATE, (short) 2, 2,
                new SaslAuthenticateRequestData().setAuthBytes(token)));
        return read(socket, ApiKeys.SASL_AUTHENTICATE, (short) 2);
    }

    private double authentications(String outcome, String reason) {
        return registry.find("leasehold.client.authentications").tag("mechanism", "OAUTHBEARER")
                .tag("outcome", outcome).tag("reason", reason).counters().stream().mapToDouble(c -> c.count()).sum();
    }

    @Test
    void aGoodTokenAuthenticatesItsSubjectForTheTokensLifetime() throws Exception {
        startServer(null);
        JwtClaims claims = TestTokens.claims("alice");
        claims.setExpirationTime(NumericDate.fromSeconds(Instant.now().plusSeconds(600).getEpochSecond()));
        try (Socket socket = connect()) {
            SaslAuthenticateResponseData answer = login(socket, bearer(TestTokens.sign(claims, KEY)));
            assertThat(answer.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(answer.sessionLifetimeMs()).as("the token's remaining validity")
                    .isBetween(590_000L, 600_000L);

            socket.getOutputStream().write(frame(ApiKeys.METADATA, (short) 9, 3, new MetadataRequestData()));
            read(socket, ApiKeys.METADATA, (short) 9);
        }
        assertThat(principals).containsExactly(new KafkaPrincipal("User", "alice"));
        assertThat(authentications("success", "none")).isEqualTo(1);
    }

    @Test
    void aShorterMaximumLifetimeWinsAndTheSameSubjectMayReauthenticate() throws Exception {
        startServer(Duration.ofMinutes(1));
        try (Socket socket = connect()) {
            assertThat(login(socket, bearer(TestTokens.sign(TestTokens.claims("alice"), KEY))).sessionLifetimeMs())
                    .isEqualTo(60_000L);
            assertThat(login(socket, bearer(TestTokens.sign(TestTokens.claims("alice"), KEY))).errorCode())
                    .as("re-authentication with a fresh token").isEqualTo(Errors.NONE.code());
            SaslAuthenticateResponseData switched = login(socket, bearer(TestTokens.sign(TestTokens.claims("bob"),
                    KEY)));
            assertThat(switched.errorCode()).isEqualTo(Errors.SASL_AUTHENTICATION_FAILED.code());
            assertThat(closedByServer(socket)).isTrue();
        }
        assertThat(authentications("failure", "principal_changed")).isEqualTo(1);
    }

    @Test
    void aTokenExpiringBeforeTheMaximumLifetimeEndsTheSessionAndAClientThatDoesNotReauthenticateIsClosed()
            throws Exception {
        startServer(Duration.ofHours(1));
        JwtClaims claims = TestTokens.claims("alice");
        // Ten seconds: on two loaded cores the first login of a test JVM can take seconds.
        claims.setExpirationTime(NumericDate.fromSeconds(Instant.now().plusSeconds(10).getEpochSecond()));
        try (Socket socket = connect()) {
            long lifetime = login(socket, bearer(TestTokens.sign(claims, KEY))).sessionLifetimeMs();
            long sessionEnds = System.currentTimeMillis() + lifetime;
            assertThat(lifetime).as("capped by the token's expiry, not the 1 h maximum").isBetween(1L, 10_000L);
            socket.getOutputStream().write(frame(ApiKeys.METADATA, (short) 9, 3, new MetadataRequestData()));
            read(socket, ApiKeys.METADATA, (short) 9);

            Thread.sleep(Math.max(0, sessionEnds - System.currentTimeMillis()) + 200);
            socket.getOutputStream().write(frame(ApiKeys.METADATA, (short) 9, 4, new MetadataRequestData()));

            assertThat(closedByServer(socket)).as("the first request after the session closes the connection")
                    .isTrue();
        }
        assertThat(routed).as("only the request within the session was served").hasSize(1);
    }

    @Test
    void aRefusedTokenGetsTheInvalidTokenStatusThenTheFailureAfterTheClientsAcknowledgement() throws Exception {
        startServer(null);
        JwtClaims expired = TestTokens.claims("alice");
        expired.setExpirationTime(NumericDate.fromSeconds(Instant.now().minusSeconds(600).getEpochSecond()));
        try (Socket socket = connect()) {
            SaslAuthenticateResponseData challenge = login(socket, bearer(TestTokens.sign(expired, KEY)));
            assertThat(challenge.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(new String(challenge.authBytes(), StandardCharsets.UTF_8))
                    .isEqualTo("{\"status\":\"invalid_token\"}");

            socket.getOutputStream().write(frame(ApiKeys.SASL_AUTHENTICATE, (short) 2, 3,
                    new SaslAuthenticateRequestData().setAuthBytes(new byte[] {1})));
            SaslAuthenticateResponseData refused = read(socket, ApiKeys.SASL_AUTHENTICATE, (short) 2);
            assertThat(refused.errorCode()).isEqualTo(Errors.SASL_AUTHENTICATION_FAILED.code());
            assertThat(refused.errorMessage()).contains("invalid_token").contains("token_expired");
            assertThat(closedByServer(socket)).isTrue();
        }
        try (Socket socket = connect()) {
            SaslAuthenticateResponseData challenge = login(socket, bearer(TestTokens.sign(TestTokens.claims("alice"),
                    UNKNOWN_KEY)));
            assertThat(new String(challenge.authBytes(), StandardCharsets.UTF_8)).contains("invalid_token");
            socket.getOutputStream().write(frame(ApiKeys.METADATA, (short) 9, 3, new MetadataRequestData()));
            assertThat(closedByServer(socket)).as("no request is served after a refused token").isTrue();
        }
        assertThat(routed).isEmpty();
        assertThat(authentications("failure", "token_expired")).isEqualTo(1);
    }

    /**
     * Seeded fuzz over OAUTHBEARER: bad GS2 headers, other schemes, garbage and unsigned JWTs,
     * tokens signed by an unknown key, huge tokens, stray %x01, in random order and mutated. Each
     * connection must be answered or closed, nobody authenticates, only ApiVersions reaches the
     * router, and a good client is still served afterwards.
     */
    @Test
    void fuzzedOAuthBearerTokensAuthenticateNobodyAndTheListenerKeepsServing() throws Exception {
        startServer(null);
        long seed = Long.getLong("leasehold.fuzz.seed", System.nanoTime());
        Random random = new Random(seed);
        String foreign = TestTokens.sign(TestTokens.claims("admin"), UNKNOWN_KEY);
        String[] parts = TestTokens.sign(TestTokens.claims("alice"), KEY).split("\\.");
        List<byte[]> tokens = List.of(
                bearer(foreign),
                bearer(parts[0] + "." + foreign.split("\\.")[1] + "." + parts[2]),
                bearer(parts[0] + "." + parts[1] + "."),
                bearer("eyJhbGciOiJub25lIn0." + parts[1] + "."),
                bearer("garbage"),
                bearer("a".repeat(400_000)),
                "n,a=admin,\u0001auth=Bearer x.y.z\u0001\u0001".getBytes(StandardCharsets.UTF_8),
                "y,,\u0001auth=Bearer x.y.z\u0001\u0001".getBytes(StandardCharsets.UTF_8),
                "n,,\u0001auth=Basic YWRtaW46YWRtaW4=\u0001\u0001".getBytes(StandardCharsets.UTF_8),
                "n,,\u0001auth=Bearer \u0001\u0001".getBytes(StandardCharsets.UTF_8),
                "n,,\u0001auth=Bearer x.y.z\u0001bad key=\u0000\u0001\u0001".getBytes(StandardCharsets.UTF_8),
                new byte[] {1},
                new byte[0]);
        List<byte[]> pieces = new ArrayList<>();
        pieces.add(frame(ApiKeys.SASL_HANDSHAKE, (short) 1, 1, new SaslHandshakeRequestData()
                .setMechanism("OAUTHBEARER")));
        pieces.add(frame(ApiKeys.SASL_HANDSHAKE, (short) 0, 1, new SaslHandshakeRequestData()
                .setMechanism("OAUTHBEARER")));
        pieces.add(frame(ApiKeys.METADATA, (short) 9, 4, new MetadataRequestData()));
        pieces.add(frame(ApiKeys.API_VERSIONS, (short) 3, 5, new ApiVersionsRequestData()
                .setClientSoftwareName("t").setClientSoftwareVersion("1")));
        for (byte[] token : tokens) {
            pieces.add(frame(ApiKeys.SASL_AUTHENTICATE, (short) 2, 2, new SaslAuthenticateRequestData()
                    .setAuthBytes(token)));
            pieces.add(bare(token));
        }
        int cases = Integer.getInteger("leasehold.fuzz.cases", 300);
        for (int c = 0; c < cases; c++) {
            List<byte[]> frames = new ArrayList<>();
            // Mostly a handshake first, so the tokens reach the OAUTHBEARER exchange.
            if (random.nextInt(4) > 0) {
                frames.add(pieces.get(random.nextInt(2)));
            }
            for (int n = 1 + random.nextInt(4); n > 0; n--) {
                frames.add(mutate(pieces.get(random.nextInt(pieces.size())), random));
            }
            try (Socket socket = connect()) {
                writeAndDrain(socket, frames, "seed " + seed + " case " + c);
            }
        }
        assertThat(routed).as("seed %d: only ApiVersions may reach the router", seed)
                .allMatch(api -> api == ApiKeys.API_VERSIONS);
        assertThat(authentications("success", "none")).as("seed %d: nobody authenticated", seed).isZero();
        assertThat(registry.find("leasehold.client.authentications").tag("outcome", "failure").counters())
                .as("seed %d: refusals are counted", seed).isNotEmpty();

        try (Socket socket = connect()) {
            assertThat(login(socket, bearer(TestTokens.sign(TestTokens.claims("alice"), KEY))).errorCode())
                    .isEqualTo(Errors.NONE.code());
        }
    }
}
