package io.leasehold.proxy.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.leasehold.proxy.admin.ProxyMetrics;
import io.leasehold.proxy.audit.AuditEvent;
import io.leasehold.proxy.audit.AuditLog;
import io.leasehold.proxy.audit.AuthenticationAudit;
import io.leasehold.proxy.backend.BackendConnector;
import io.leasehold.proxy.backend.BackendListener;
import io.leasehold.proxy.frontend.FrontendServer;
import io.leasehold.proxy.frontend.TestLimits;
import io.leasehold.proxy.protocol.KafkaMessages;
import io.leasehold.proxy.request.RequestHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.ReferenceCounted;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SASL gate on a real listener over raw sockets, with an in-test router that records what
 * reaches it: nothing but ApiVersions gets through before authentication, SaslHandshake v0 with
 * bare tokens works, failures are answered then closed, and seeded fuzzed SASL frames neither
 * crash the listener nor get a request served.
 */
class SaslGateTest {
    private static final int MAX_FRAME = 2 * 1024 * 1024;
    private static final String PASSWORD = "right-password";

    private EventLoopGroup boss;
    private EventLoopGroup workers;
    private FrontendServer server;
    private SimpleMeterRegistry registry;
    private final List<ApiKeys> routed = new CopyOnWriteArrayList<>();
    private final List<KafkaPrincipal> principals = new CopyOnWriteArrayList<>();
    private final List<AuditEvent> audited = new CopyOnWriteArrayList<>();
    private final AuditLog auditLog = new AuditLog() {
        @Override
        public boolean enabled() {
            return true;
        }

        @Override
        public void record(AuditEvent event) {
            audited.add(event);
        }
    };
    private Path users;
    private int port;

    /** Answers ApiVersions (listing Metadata only) and Metadata (empty), recording every API it is given. */
    private final RequestHandler router = (request, client) -> {
        try {
            routed.add(request.apiKey());
            principals.add(client.principal());
            ApiMessage body = request.apiKey() == ApiKeys.API_VERSIONS
                    ? new ApiVersionsResponseData().setApiKeys(new ApiVersionsResponseData.ApiVersionCollection(
                            List.of(new ApiVersionsResponseData.ApiVersion().setApiKey(ApiKeys.METADATA.id)
                                    .setMinVersion((short) 0).setMaxVersion((short) 12)).iterator()))
                    : new MetadataResponseData();
            return CompletableFuture.<ReferenceCounted>completedFuture(KafkaMessages.encodeResponse(client.alloc(),
                    request.apiKey(), request.version(), request.correlationId(), body));
        } finally {
            request.release();
        }
    };

    @BeforeEach
    void start(@TempDir Path dir) throws Exception {
        users = Files.writeString(dir.resolve("users.yaml"), "users: [{name: alice, password: " + PASSWORD + "}, "
                + "{name: bob, password: " + PASSWORD + "}]\n");
        startServer(null);
    }

    /** Starts the listener; {@code maxReauth} is the session lifetime, {@code null} for none. */
    private void startServer(Duration maxReauth) throws Exception {
        boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        workers = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        registry = new SimpleMeterRegistry();
        SaslGate gate = new SaslGate(router, new SaslSettings(List.of("SCRAM-SHA-512", "PLAIN"),
                UsersFile.load(users), maxReauth), new AuthenticationMetrics(registry),
                new AuthenticationAudit(auditLog, Clock.systemUTC()));
        server = FrontendServer.builder("127.0.0.1", 0, boss, workers, gate,
                        BackendConnector.builder(new BackendConnector.Settings(Duration.ofSeconds(1),
                                Duration.ofSeconds(1), Duration.ofSeconds(1), MAX_FRAME), new BackendListener() { })
                                .build(),
                        new ProxyMetrics(registry), TestLimits.builder().maxFrameBytes(MAX_FRAME)
                                .maxConnections(50).idleTimeout(Duration.ofSeconds(10)).build())
                .frameCap(gate.frameCap())
                .build();
        port = server.start().getPort();
    }

    @AfterEach
    void stop() {
        server.close();
        workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    static byte[] frame(ApiKeys api, short version, int correlationId, ApiMessage body) {
        ByteBuf request = KafkaMessages.encodeRequest(ByteBufAllocator.DEFAULT, api, version, "test", body);
        try {
            KafkaMessages.withRequestCorrelationId(request, correlationId);
            byte[] bytes = new byte[request.readableBytes()];
            request.getBytes(request.readerIndex(), bytes);
            return bare(bytes);
        } finally {
            request.release();
        }
    }

    /** A length prefix and the bytes: how tokens travel after SaslHandshake v0. */
    static byte[] bare(byte[] bytes) {
        return ByteBuffer.allocate(4 + bytes.length).putInt(bytes.length).put(bytes).array();
    }

    private static byte[] plainToken(String user, String password) {
        return ("\0" + user + "\0" + password).getBytes(StandardCharsets.UTF_8);
    }

    /** Reads one response frame and decodes it as {@code api} v{@code version}. */
    static <T extends ApiMessage> T read(Socket socket, ApiKeys api, short version) throws IOException {
        DataInputStream in = new DataInputStream(socket.getInputStream());
        byte[] bytes = new byte[in.readInt()];
        in.readFully(bytes);
        ByteBuf frame = io.netty.buffer.Unpooled.wrappedBuffer(bytes);
        return KafkaMessages.decodeResponse(frame, api, version);
    }

    static boolean closedByServer(Socket socket) throws IOException {
        try {
            while (socket.getInputStream().read() != -1) {
                // Responses written before the close are drained first.
            }
            return true;
        } catch (SocketException reset) {
            return true;
        }
    }

    /** Writes {@code bytes}; the server may close the connection (refusing them) before they are all sent. */
    private static void writeUnlessClosed(Socket socket, byte[] bytes) throws IOException {
        try {
            socket.getOutputStream().write(bytes);
        } catch (SocketException closed) {
            // Refused from the length prefix: the rest had nowhere to go.
        }
    }

    private Socket connect() throws IOException {
        Socket socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(5_000);
        return socket;
    }

    private double authentications(String outcome, String reason) {
        return registry.find("leasehold.client.authentications").tag("outcome", outcome).tag("reason", reason)
                .counters().stream().mapToDouble(c -> c.count()).sum();
    }

    @Test
    void beforeAuthenticationOnlyApiVersionsIsServedAndItListsTheSaslApis() throws IOException {
        try (Socket socket = connect()) {
            socket.getOutputStream().write(frame(ApiKeys.API_VERSIONS, (short) 3, 1, new ApiVersionsRequestData()
                    .setClientSoftwareName("t").setClientSoftwareVersion("1")));
            ApiVersionsResponseData versions = read(socket, ApiKeys.API_VERSIONS, (short) 3);
            assertThat(versions.apiKeys().find(ApiKeys.SASL_HANDSHAKE.id).minVersion()).isZero();
            assertThat(versions.apiKeys().find(ApiKeys.SASL_HANDSHAKE.id).maxVersion()).isEqualTo((short) 1);
            assertThat(versions.apiKeys().find(ApiKeys.SASL_AUTHENTICATE.id).maxVersion()).isEqualTo((short) 2);
            assertThat(versions.apiKeys().find(ApiKeys.METADATA.id)).as("the router's own answer is kept").isNotNull();

            socket.getOutputStream().write(frame(ApiKeys.METADATA, (short) 9, 2, new MetadataRequestData()));
            assertThat(closedByServer(socket)).as("Metadata before SASL closes the connection").isTrue();
        }
        assertThat(routed).containsExactly(ApiKeys.API_VERSIONS);
        assertThat(principals).containsExactly(KafkaPrincipal.ANONYMOUS);
        assertThat(registry.find("leasehold.frames.rejected").tag("reason", "unauthenticated").counter().count())
                .isEqualTo(1);
    }

    @Test
    void plainOverSaslAuthenticateLetsTheConnectionThroughAsItsUser() throws IOException {
        try (Socket socket = connect()) {
            socket.getOutputStream().write(frame(ApiKeys.SASL_HANDSHAKE, (short) 1, 1,
                    new SaslHandshakeRequestData().setMechanism("PLAIN")));
            SaslHandshakeResponseData handshake = read(socket, ApiKeys.SASL_HANDSHAKE, (short) 1);
            assertThat(handshake.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(handshake.mechanisms()).containsExactly("SCRAM-SHA-512", "PLAIN");

            socket.getOutputStream().write(frame(ApiKeys.SASL_AUTHENTICATE, (short) 2, 2,
                    new SaslAuthenticateRequestData().setAuthBytes(plainToken("alice", PASSWORD))));
            SaslAuthenticateResponseData authenticated = read(socket, ApiKeys.SASL_AUTHENTICATE, (short) 2);
            assertThat(authenticated.errorCode()).isEqualTo(Errors.NONE.code());

            socket.getOutputStream().write(frame(ApiKeys.METADATA, (short) 9, 3, new MetadataRequestData()));
            read(socket, ApiKeys.METADATA, (short) 9);
        }
        assertThat(routed).containsExactly(ApiKeys.METADATA);
        assertThat(principals).as("the router sees who authenticated").containsExactly(new KafkaPrincipal("User", "alice"));
        assertThat(authentications("success", "none")).isEqualTo(1);
        assertThat(audited).extracting(AuditEvent::api, AuditEvent::principal, AuditEvent::decision)
                .endsWith(tuple("SaslAuthenticate", "User:alice", AuditEvent.Decision.ALLOW));
    }

    @Test
    void handshakeV0IsFollowedByBareTokens() throws IOException {
        try (Socket socket = connect()) {
            socket.getOutputStream().write(frame(ApiKeys.SASL_HANDSHAKE, (short) 0, 1,
                    new SaslHandshakeRequestData().setMechanism("PLAIN")));
            assertThat(((SaslHandshakeResponseData) read(socket, ApiKeys.SASL_HANDSHAKE, (short) 0)).errorCode())
                    .isEqualTo(Errors.NONE.code());

            socket.getOutputStream().write(bare(plainToken("alice", PASSWORD)));
            DataInputStream in = new DataInputStream(socket.getInputStream());
            assertThat(in.readInt()).as("PLAIN's empty server token, bare").isZero();

            socket.getOutputStream().write(frame(ApiKeys.METADATA, (short) 9, 3, new MetadataRequestData()));
            read(socket, ApiKeys.METADATA, (short) 9);
        }
        assertThat(routed).containsExactly(ApiKeys.METADATA);

        try (Socket socket = connect()) {
            socket.getOutputStream().write(frame(ApiKeys.SASL_HANDSHAKE, (short) 0, 1,
                    new SaslHandshakeRequestData().setMechanism("PLAIN")));
            read(socket, ApiKeys.SASL_HANDSHAKE, (short) 0);
            socket.getOutputStream().write(bare(plainToken("alice", "wrong")));
            assertThat(closedByServer(socket)).as("a refused bare token closes the connection").isTrue();
        }
        assertThat(authentications("failure", "bad_credentials")).isEqualTo(1);
        assertThat(audited).extracting(AuditEvent::api, AuditEvent::principal, AuditEvent::clientId,
                AuditEvent::operation, AuditEvent::resourceName, AuditEvent::decision).containsExactly(
                        tuple("SaslHandshake", "User:alice", "test", "AUTHENTICATE", "alice",
                                AuditEvent.Decision.ALLOW),
                        tuple("SaslHandshake", "User:ANONYMOUS", "test", "AUTHENTICATE", null,
                                AuditEvent.Decision.DENY));
    }

    @Test
    void wrongPasswordUnknownMechanismAndAuthenticateWithoutHandshakeAreAnsweredThenClosed() throws IOException {
        try (Socket socket = connect()) {
            socket.getOutputStream().write(frame(ApiKeys.SASL_HANDSHAKE, (short) 1, 1,
                    new SaslHandshakeRequestData().setMechanism("PLAIN")));
            read(socket, ApiKeys.SASL_HANDSHAKE, (short) 1);
            socket.getOutputStream().write(frame(ApiKeys.SASL_AUTHENTICATE, (short) 1, 2,
                    new SaslAuthenticateRequestData().setAuthBytes(plainToken("alice", "wrong"))));
            SaslAuthenticateResponseData refused = read(socket, ApiKeys.SASL_AUTHENTICATE, (short) 1);
            assertThat(refused.errorCode()).isEqualTo(Errors.SASL_AUTHENTICATION_FAILED.code());
            assertThat(refused.errorMessage()).isEqualTo("Authentication failed: Invalid username or password");
            assertThat(closedByServer(socket)).isTrue();
        }
        try (Socket socket = connect()) {
            socket.getOutputStream().write(frame(ApiKeys.SASL_HANDSHAKE, (short) 1, 1,
                    new SaslHandshakeRequestData().setMechanism("GSSAPI")));
            SaslHandshakeResponseData refused = read(socket, ApiKeys.SASL_HANDSHAKE, (short) 1);
            assertThat(refused.errorCode()).isEqualTo(Errors.UNSUPPORTED_SASL_MECHANISM.code());
            assertThat(refused.mechanisms()).containsExactly("SCRAM-SHA-512", "PLAIN");
            assertThat(closedByServer(socket)).isTrue();
        }
        try (Socket socket = connect()) {
            socket.getOutputStream().write(frame(ApiKeys.SASL_AUTHENTICATE, (short) 2, 1,
                    new SaslAuthenticateRequestData().setAuthBytes(plainToken("alice", PASSWORD))));
            SaslAuthenticateResponseData refused = read(socket, ApiKeys.SASL_AUTHENTICATE, (short) 2);
            assertThat(refused.errorCode()).isEqualTo(Errors.ILLEGAL_SASL_STATE.code());
            assertThat(closedByServer(socket)).isTrue();
        }
        assertThat(routed).isEmpty();
        assertThat(authentications("failure", "unsupported_mechanism")).isEqualTo(1);
        assertThat(authentications("failure", "wrong_order")).isEqualTo(1);
        assertThat(audited).extracting(AuditEvent::api, AuditEvent::principal, AuditEvent::decision).containsExactly(
                tuple("SaslAuthenticate", "User:ANONYMOUS", AuditEvent.Decision.DENY),
                tuple("SaslHandshake", "User:ANONYMOUS", AuditEvent.Decision.DENY),
                tuple("SaslAuthenticate", "User:ANONYMOUS", AuditEvent.Decision.DENY));
    }

    /** Runs SaslHandshake v1 and SaslAuthenticate v2 with PLAIN as {@code user}; returns the final answer. */
    private static SaslAuthenticateResponseData plainLogin(Socket socket, String user) throws IOException {
        socket.getOutputStream().write(frame(ApiKeys.SASL_HANDSHAKE, (short) 1, 10,
                new SaslHandshakeRequestData().setMechanism("PLAIN")));
        assertThat(((SaslHandshakeResponseData) read(socket, ApiKeys.SASL_HANDSHAKE, (short) 1)).errorCode())
                .isEqualTo(Errors.NONE.code());
        socket.getOutputStream().write(frame(ApiKeys.SASL_AUTHENTICATE, (short) 2, 11,
                new SaslAuthenticateRequestData().setAuthBytes(plainToken(user, PASSWORD))));
        return read(socket, ApiKeys.SASL_AUTHENTICATE, (short) 2);
    }

    private static void metadataIsServed(Socket socket) throws IOException {
        socket.getOutputStream().write(frame(ApiKeys.METADATA, (short) 9, 20, new MetadataRequestData()));
        read(socket, ApiKeys.METADATA, (short) 9);
    }

    @Test
    void withoutASessionLifetimeASecondHandshakeClosesTheConnection() throws IOException {
        try (Socket socket = connect()) {
            assertThat(plainLogin(socket, "alice").sessionLifetimeMs()).as("no lifetime: no re-authentication")
                    .isZero();
            socket.getOutputStream().write(frame(ApiKeys.SASL_HANDSHAKE, (short) 1, 12,
                    new SaslHandshakeRequestData().setMechanism("PLAIN")));
            assertThat(closedByServer(socket)).isTrue();
        }
    }

    @Test
    void reauthenticationAsTheSameUserKeepsTheConnectionAndAnotherUserIsRefused() throws Exception {
        stop();
        startServer(Duration.ofMinutes(10));
        try (Socket socket = connect()) {
            assertThat(plainLogin(socket, "alice").sessionLifetimeMs()).isEqualTo(600_000);
            metadataIsServed(socket);

            assertThat(plainLogin(socket, "alice").errorCode()).as("re-authentication").isEqualTo(Errors.NONE.code());
            metadataIsServed(socket);

            SaslAuthenticateResponseData switched = plainLogin(socket, "bob");
            assertThat(switched.errorCode()).isEqualTo(Errors.SASL_AUTHENTICATION_FAILED.code());
            assertThat(switched.errorMessage()).contains("Cannot change principals");
            assertThat(closedByServer(socket)).isTrue();
        }
        assertThat(authentications("success", "none")).isEqualTo(2);
        assertThat(authentications("failure", "principal_changed")).isEqualTo(1);
    }

    @Test
    void aRequestAfterTheSessionLifetimeClosesTheConnection() throws Exception {
        stop();
        startServer(Duration.ofMillis(300));
        try (Socket socket = connect()) {
            assertThat(plainLogin(socket, "alice").sessionLifetimeMs()).isEqualTo(300);
            Thread.sleep(600);
            socket.getOutputStream().write(frame(ApiKeys.METADATA, (short) 9, 20, new MetadataRequestData()));
            assertThat(closedByServer(socket)).isTrue();
        }
        assertThat(routed).isEmpty();
        assertThat(registry.find("leasehold.frames.rejected").tag("reason", "session_expired").counter().count())
                .isEqualTo(1);
    }

    /** The listener checks the cap on the length prefix, so the gate never sees such a frame. */
    @Test
    void oversizedTokensBeforeAuthenticationCloseTheConnection() throws IOException {
        try (Socket socket = connect()) {
            socket.getOutputStream().write(frame(ApiKeys.SASL_HANDSHAKE, (short) 1, 1,
                    new SaslHandshakeRequestData().setMechanism("PLAIN")));
            read(socket, ApiKeys.SASL_HANDSHAKE, (short) 1);
            writeUnlessClosed(socket, frame(ApiKeys.SASL_AUTHENTICATE, (short) 2, 2,
                    new SaslAuthenticateRequestData().setAuthBytes(new byte[SaslGate.MAX_UNAUTHENTICATED_BYTES + 1])));
            assertThat(closedByServer(socket)).isTrue();
        }
        assertThat(registry.find("leasehold.frames.rejected").tag("reason", "oversized_unauthenticated").counter()
                .count()).isEqualTo(1);
    }

    @Test
    void oversizedReauthenticationTokenClosesTheConnection() throws Exception {
        stop();
        startServer(Duration.ofMinutes(10));
        try (Socket socket = connect()) {
            plainLogin(socket, "alice");
            socket.getOutputStream().write(frame(ApiKeys.SASL_HANDSHAKE, (short) 1, 1,
                    new SaslHandshakeRequestData().setMechanism("PLAIN")));
            read(socket, ApiKeys.SASL_HANDSHAKE, (short) 1);
            writeUnlessClosed(socket, frame(ApiKeys.SASL_AUTHENTICATE, (short) 2, 2,
                    new SaslAuthenticateRequestData().setAuthBytes(new byte[SaslGate.MAX_UNAUTHENTICATED_BYTES + 1])));
            assertThat(closedByServer(socket)).isTrue();
        }
        assertThat(registry.find("leasehold.frames.rejected").tag("reason", "oversized_unauthenticated").counter()
                .count()).isEqualTo(1);
    }

    /**
     * Seeded fuzz: connections send a few frames drawn from valid SASL and other requests (wrong
     * credentials, so none may authenticate), in random order, with random byte flips,
     * truncations, lying length prefixes and oversized tokens. Each must be answered or closed;
     * the router must see nothing but ApiVersions; the listener must still serve a good client.
     */
    @Test
    void fuzzedSaslFramesNeverReachTheRouterAndTheListenerKeepsServing() throws IOException {
        long seed = Long.getLong("leasehold.fuzz.seed", System.nanoTime());
        Random random = new Random(seed);
        List<byte[]> pieces = List.of(
                frame(ApiKeys.SASL_HANDSHAKE, (short) 1, 1, new SaslHandshakeRequestData().setMechanism("PLAIN")),
                frame(ApiKeys.SASL_HANDSHAKE, (short) 0, 1, new SaslHandshakeRequestData().setMechanism("PLAIN")),
                frame(ApiKeys.SASL_HANDSHAKE, (short) 1, 1,
                        new SaslHandshakeRequestData().setMechanism("SCRAM-SHA-512")),
                frame(ApiKeys.SASL_AUTHENTICATE, (short) 2, 2,
                        new SaslAuthenticateRequestData().setAuthBytes(plainToken("alice", "wrong"))),
                frame(ApiKeys.SASL_AUTHENTICATE, (short) 1, 2, new SaslAuthenticateRequestData()
                        .setAuthBytes("n,,n=alice,r=abc".getBytes(StandardCharsets.UTF_8))),
                frame(ApiKeys.SASL_AUTHENTICATE, (short) 0, 3, new SaslAuthenticateRequestData()
                        .setAuthBytes("c=biws,r=abcdef,p=AAAA".getBytes(StandardCharsets.UTF_8))),
                bare(plainToken("alice", "wrong")),
                frame(ApiKeys.METADATA, (short) 9, 4, new MetadataRequestData()),
                frame(ApiKeys.API_VERSIONS, (short) 3, 5, new ApiVersionsRequestData()
                        .setClientSoftwareName("t").setClientSoftwareVersion("1")),
                frame(ApiKeys.SASL_AUTHENTICATE, (short) 2, 6, new SaslAuthenticateRequestData()
                        .setAuthBytes(new byte[SaslGate.MAX_UNAUTHENTICATED_BYTES + 100])));
        int cases = Integer.getInteger("leasehold.fuzz.cases", 300);
        for (int c = 0; c < cases; c++) {
            List<byte[]> frames = new ArrayList<>();
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
        routed.clear();
        principals.clear();
        plainOverSaslAuthenticateLetsTheConnectionThroughAsItsUser();
    }

    /**
     * Frames for fuzzing an authenticated connection: handshakes for both mechanisms and both
     * versions, authentications as the same user (right and wrong password) and as another user
     * (right password), bare tokens, an oversized token, Metadata and ApiVersions.
     */
    private static List<byte[]> reauthenticationPieces(boolean withAlicesPassword) {
        List<byte[]> pieces = new ArrayList<>(List.of(
                frame(ApiKeys.SASL_HANDSHAKE, (short) 1, 30, new SaslHandshakeRequestData().setMechanism("PLAIN")),
                frame(ApiKeys.SASL_HANDSHAKE, (short) 0, 31, new SaslHandshakeRequestData().setMechanism("PLAIN")),
                frame(ApiKeys.SASL_HANDSHAKE, (short) 1, 32,
                        new SaslHandshakeRequestData().setMechanism("SCRAM-SHA-512")),
                frame(ApiKeys.SASL_AUTHENTICATE, (short) 2, 33,
                        new SaslAuthenticateRequestData().setAuthBytes(plainToken("alice", "wrong"))),
                frame(ApiKeys.SASL_AUTHENTICATE, (short) 2, 34,
                        new SaslAuthenticateRequestData().setAuthBytes(plainToken("bob", PASSWORD))),
                frame(ApiKeys.SASL_AUTHENTICATE, (short) 0, 35,
                        new SaslAuthenticateRequestData().setAuthBytes(plainToken("bob", PASSWORD))),
                bare(plainToken("bob", PASSWORD)),
                frame(ApiKeys.SASL_AUTHENTICATE, (short) 2, 36, new SaslAuthenticateRequestData()
                        .setAuthBytes(new byte[SaslGate.MAX_UNAUTHENTICATED_BYTES + 100])),
                frame(ApiKeys.METADATA, (short) 9, 37, new MetadataRequestData()),
                frame(ApiKeys.API_VERSIONS, (short) 3, 38, new ApiVersionsRequestData()
                        .setClientSoftwareName("t").setClientSoftwareVersion("1"))));
        if (withAlicesPassword) {
            pieces.add(frame(ApiKeys.SASL_AUTHENTICATE, (short) 2, 39,
                    new SaslAuthenticateRequestData().setAuthBytes(plainToken("alice", PASSWORD))));
            pieces.add(bare(plainToken("alice", PASSWORD)));
        }
        return pieces;
    }

    /** Writes a few fuzzed {@code pieces} on an open connection, then reads until the server closes. */
    private static void fuzz(Socket socket, List<byte[]> pieces, Random random, String what) throws IOException {
        List<byte[]> frames = new ArrayList<>();
        for (int n = 1 + random.nextInt(5); n > 0; n--) {
            frames.add(mutate(pieces.get(random.nextInt(pieces.size())), random));
        }
        writeAndDrain(socket, frames, what);
    }

    /**
     * Writes {@code frames} on an open connection, ends its output and reads until the server
     * closes. A reset while still writing is a fine outcome: the server closed first.
     */
    static void writeAndDrain(Socket socket, List<byte[]> frames, String what) throws IOException {
        try {
            for (byte[] bytes : frames) {
                socket.getOutputStream().write(bytes);
            }
            socket.shutdownOutput();
            drain(socket, what);
        } catch (SocketException reset) {
            // The server closed the connection while the case was still writing.
        }
    }

    /**
     * Seeded fuzz of re-authentication (KIP-368): connections authenticated as alice send
     * SaslHandshake/SaslAuthenticate in random orders, as alice and as bob, oversized, truncated,
     * with flipped bytes and lying lengths, among ordinary requests. Nothing may crash, no request
     * may be served as anyone but alice, and once a session has expired nothing is served.
     */
    @Test
    void fuzzedReauthenticationNeverServesAnotherUserOrAnExpiredSession() throws Exception {
        long seed = Long.getLong("leasehold.fuzz.seed", System.nanoTime());
        Random random = new Random(seed);
        int cases = Integer.getInteger("leasehold.fuzz.cases", 300);
        stop();
        startServer(Duration.ofMinutes(10));
        List<byte[]> live = reauthenticationPieces(true);
        for (int c = 0; c < cases; c++) {
            try (Socket socket = connect()) {
                assertThat(plainLogin(socket, "alice").errorCode()).isEqualTo(Errors.NONE.code());
                fuzz(socket, live, random, "seed " + seed + " case " + c);
            }
        }
        assertThat(principals).as("seed %d: every request served was alice's", seed).isNotEmpty()
                .allMatch(principal -> principal.equals(new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "alice")));

        stop();
        startServer(Duration.ofMillis(200));
        routed.clear();
        List<byte[]> afterExpiry = reauthenticationPieces(false);
        for (int c = 0; c < cases / 10; c++) {
            try (Socket socket = connect()) {
                assertThat(plainLogin(socket, "alice").errorCode()).isEqualTo(Errors.NONE.code());
                Thread.sleep(300);
                fuzz(socket, afterExpiry, random, "seed " + seed + " expired case " + c);
            }
        }
        assertThat(routed).as("seed %d: nothing served after a session expired", seed).isEmpty();
        stop();
        startServer(Duration.ofMinutes(10));
        principals.clear();
        plainOverSaslAuthenticateLetsTheConnectionThroughAsItsUser();
    }

    /** Reads until the server closes; fails if it neither answers nor closes within the socket timeout. */
    static void drain(Socket socket, String what) throws IOException {
        try {
            while (socket.getInputStream().read() != -1) {
                // Answers are fine; only the end matters.
            }
        } catch (java.net.SocketTimeoutException e) {
            throw new AssertionError(what + ": the connection was neither answered to the end nor closed", e);
        } catch (EOFException | SocketException closed) {
            // Closed or reset by the server.
        }
    }

    static byte[] mutate(byte[] original, Random random) {
        byte[] bytes = original.clone();
        switch (random.nextInt(5)) {
            case 0 -> {
                return bytes;
            }
            case 1 -> {
                for (int i = 0; i < 1 + random.nextInt(4); i++) {
                    int at = 4 + random.nextInt(Math.max(1, bytes.length - 4));
                    if (at < bytes.length) {
                        bytes[at] = (byte) random.nextInt(256);
                    }
                }
                return bytes;
            }
            case 2 -> {
                int keep = 4 + random.nextInt(Math.max(1, bytes.length - 4));
                byte[] truncated = java.util.Arrays.copyOf(bytes, Math.min(keep, bytes.length));
                ByteBuffer.wrap(truncated).putInt(truncated.length - 4);
                return truncated;
            }
            case 3 -> {
                ByteBuffer.wrap(bytes).putInt(random.nextInt(64));
                return bytes;
            }
            default -> {
                ByteBuffer.wrap(bytes).putInt(bytes.length - 4 + 1 + random.nextInt(16));
                return bytes;
            }
        }
    }
}
