package io.leasehold.proxy.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.leasehold.proxy.testing.ConfiguredProxy;
import io.leasehold.proxy.testing.JwksServer;
import io.leasehold.proxy.testing.KafkajsRun;
import io.leasehold.proxy.testing.StringClients;
import io.leasehold.proxy.testing.TestCertificates;
import io.leasehold.proxy.testing.TestTokens;
import io.leasehold.testing.KafkajsProcess;
import io.leasehold.testing.LocalCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.jose4j.jwk.RsaJsonWebKey;
import org.jose4j.jwt.JwtClaims;
import org.jose4j.jwt.NumericDate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * SASL/OAUTHBEARER end to end: a real etcd and reference brokers behind three proxy processes.
 * Two check tokens against one mounted JWKS file: kafka-clients (with a login handler that hands
 * out a JWT signed by the test key) and kafkajs ({@code oauthBearerProvider}) produce through one
 * and consume through the other; expired, wrong-issuer, wrong-audience and foreign-signed tokens
 * get each client's authentication error and are counted by reason; a new key added to the JWKS
 * file is taken without a restart. The third has a TLS listener (SASL_SSL), takes its keys from
 * a JWKS URL served over HTTPS by the test (trusting the test CA as {@code jwksCaFile}) and a 1 h
 * {@code connectionsMaxReauth}: kafka-clients and kafkajs produce and consume through it; a
 * kafka-clients producer whose login hands out short-lived tokens and refreshes them
 * re-authenticates as each token nears its expiry and keeps producing; kafkajs holding one token
 * nobody refreshes is refused when it expires. kcat (librdkafka 2.0.2 here) has no way to send a
 * signed token (its build has neither the {@code oidc} token-endpoint method nor a token option;
 * only the unsecured "alg: none" JWT builder), so it is shown refused with that.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OAuthBearerEndToEndTest {
    private static final String AUTHENTICATIONS = "leasehold_client_authentications_total";
    private static final int RECORDS = 40;
    /** The lifetime of the tokens a refreshing login hands out. */
    private static final Duration SHORT_TOKEN = Duration.ofSeconds(8);
    /** The lifetime of the one token kafkajs holds: long enough for its first record under load. */
    private static final Duration STALE_TOKEN = Duration.ofSeconds(12);
    private static final RsaJsonWebKey FIRST_KEY = TestTokens.newKey("first");
    private static final RsaJsonWebKey ROTATED_KEY = TestTokens.newKey("rotated");
    private static final RsaJsonWebKey FOREIGN_KEY = TestTokens.newKey("foreign");

    private Path dir;
    private Path jwks;
    private TestCertificates certs;
    private JwksServer jwksServer;
    private LocalCluster cluster;
    private ConfiguredProxy first;
    private ConfiguredProxy second;
    private ConfiguredProxy secure;

    @BeforeAll
    void startClusterAndProxies(@TempDir Path tempDir) throws Exception {
        dir = tempDir;
        jwks = new TestTokens().publish(FIRST_KEY).writeJwks(dir.resolve("jwks.json"));
        certs = TestCertificates.generate(dir.resolve("certs"));
        jwksServer = JwksServer.start(certs).publish(new TestTokens().publish(FIRST_KEY));
        cluster = LocalCluster.builder("oauth").brokers(2).leaseTtl(Duration.ofSeconds(5)).start();
        String checks = "issuer: %s\naudience: [%s]\n".formatted(TestTokens.ISSUER, TestTokens.AUDIENCE);
        String withFile = """
                sasl:
                  mechanisms: [OAUTHBEARER]
                  oauthbearer:
                    jwksFile: %s
                """.formatted(jwks) + checks.indent(4);
        first = ConfiguredProxy.builder(cluster, dir, "oauth-proxy-1").listener(withFile).start();
        second = ConfiguredProxy.builder(cluster, dir, "oauth-proxy-2").listener(withFile).start();
        secure = ConfiguredProxy.builder(cluster, dir, "oauth-proxy-tls").listener("""
                tlsCertFile: %s
                tlsKeyFile: %s
                sasl:
                  mechanisms: [OAUTHBEARER]
                  connectionsMaxReauth: 1h
                  oauthbearer:
                    jwksUrl: %s
                    jwksCaFile: %s
                """.formatted(certs.cert(TestCertificates.SERVER), certs.key(TestCertificates.SERVER),
                jwksServer.url(), certs.caCert()) + checks.indent(4)).start();
    }

    @AfterAll
    void stopAll() throws IOException {
        try {
            ConfiguredProxy.stopAll(cluster, first, second, secure);
        } finally {
            if (jwksServer != null) {
                jwksServer.close();
            }
        }
    }

    private static double failures(ConfiguredProxy proxy, String reason) throws IOException, InterruptedException {
        return Math.max(0, proxy.metrics().value(AUTHENTICATIONS,
                "mechanism=\"OAUTHBEARER\",outcome=\"failure\",reason=\"" + reason + "\""));
    }

    /** kafka-clients settings for {@code proxy} presenting {@code token}. */
    private Map<String, Object> client(ConfiguredProxy proxy, String token) {
        return client(proxy, FixedTokenLoginHandler.class,
                "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required token=\"" + token + "\";");
    }

    /** kafka-clients settings for {@code proxy} (over TLS for the secure one) logging in with {@code handler}. */
    private Map<String, Object> client(ConfiguredProxy proxy, Class<?> handler, String jaasConfig) {
        Map<String, Object> settings = new HashMap<>();
        settings.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, proxy.address());
        settings.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, proxy == secure ? "SASL_SSL" : "SASL_PLAINTEXT");
        if (proxy == secure) {
            settings.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PEM");
            settings.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, certs.caCert().toString());
        }
        settings.put(SaslConfigs.SASL_MECHANISM, "OAUTHBEARER");
        settings.put(SaslConfigs.SASL_LOGIN_CALLBACK_HANDLER_CLASS, handler.getName());
        settings.put(SaslConfigs.SASL_JAAS_CONFIG, jaasConfig);
        return settings;
    }

    private static String token(String subject, RsaJsonWebKey key) {
        return TestTokens.sign(TestTokens.claims(subject), key);
    }

    private static String expiredToken(String subject) {
        JwtClaims claims = TestTokens.claims(subject);
        claims.setExpirationTime(NumericDate.fromSeconds(Instant.now().minusSeconds(600).getEpochSecond()));
        return TestTokens.sign(claims, FIRST_KEY);
    }

    private String newTopic(String prefix) throws Exception {
        String topic = prefix + "-" + UUID.randomUUID();
        StringClients.createTopic(client(first, token("admin", FIRST_KEY)), topic, 3);
        return topic;
    }

    private void refusedByKafkaClients(ConfiguredProxy proxy, String token, String what) {
        try (Admin admin = Admin.create(client(proxy, token))) {
            assertThatThrownBy(() -> admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS))
                    .as(what).isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(SaslAuthenticationException.class);
        }
    }

    @Test
    void javaClientsProduceAndConsumeWithASignedTokenThroughBothProxies() throws Exception {
        String topic = newTopic("oauth-java");
        String alice = token("alice", FIRST_KEY);

        List<String> sent = StringClients.produce(client(first, alice), topic, "java-", RECORDS);
        List<String> read = StringClients.consume(client(second, alice), topic, "readers-" + UUID.randomUUID(),
                sent.size());

        assertThat(read).containsExactlyInAnyOrderElementsOf(sent);
        for (ConfiguredProxy proxy : List.of(first, second)) {
            assertThat(proxy.metrics().value(AUTHENTICATIONS, "mechanism=\"OAUTHBEARER\",outcome=\"success\""))
                    .as("OAUTHBEARER successes on " + proxy.address()).isGreaterThanOrEqualTo(1);
        }
    }

    @Test
    void expiredWrongIssuerWrongAudienceAndForeignSignedTokensGetKafkaClientsAuthenticationError()
            throws Exception {
        JwtClaims issuer = TestTokens.claims("alice");
        issuer.setIssuer("https://evil.test");
        JwtClaims audience = TestTokens.claims("alice");
        audience.setAudience("another-service");
        record Refused(String token, String reason) { }
        for (Refused refused : List.of(new Refused(expiredToken("alice"), "token_expired"),
                new Refused(TestTokens.sign(issuer, FIRST_KEY), "bad_issuer"),
                new Refused(TestTokens.sign(audience, FIRST_KEY), "bad_audience"),
                new Refused(token("alice", FOREIGN_KEY), "bad_signature"))) {
            ConfiguredProxy proxy = refused.reason().hashCode() % 2 == 0 ? first : second;
            double before = failures(proxy, refused.reason());

            refusedByKafkaClients(proxy, refused.token(), refused.reason());

            assertThat(failures(proxy, refused.reason())).as("%s counted on %s", refused.reason(), proxy.address())
                    .isGreaterThan(before);
        }
    }

    @Test
    void aKeyAddedToTheJwksFileIsTakenWithoutRestart() throws Exception {
        String signedByNewKey = token("alice", ROTATED_KEY);
        refusedByKafkaClients(first, signedByNewKey, "a key not yet published");

        new TestTokens().publish(FIRST_KEY).publish(ROTATED_KEY).writeJwks(dir.resolve("jwks.next"));
        Files.move(dir.resolve("jwks.next"), jwks, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);

        String topic = newTopic("oauth-rotated");
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofSeconds(1)).ignoreExceptions().untilAsserted(
                () -> assertThat(StringClients.produce(client(first, signedByNewKey), topic, "rotated-", 1)).hasSize(1));
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofSeconds(1)).ignoreExceptions().untilAsserted(
                () -> assertThat(StringClients.consume(client(second, signedByNewKey), topic,
                        "readers-" + UUID.randomUUID(), 1)).hasSize(1));
        List<JsonNode> kafkajs = kafkajs("kafkajs-rotated", first, signedByNewKey,
                List.of("produce", "--topic", topic), "after-rotation", 0);
        assertThat(kafkajs).as("kafkajs with the new key").anySatisfy(event -> assertThat(event.path("event").asText())
                .isEqualTo("acked"));
        assertThat(StringClients.produce(client(second, token("alice", FIRST_KEY)), topic, "old-key-", 1))
                .as("the old key still works").hasSize(1);
    }

    /**
     * Runs the kafkajs client with OAUTHBEARER presenting {@code token}: a producer until it has
     * sent {@code input} and exited, a consumer ({@code records > 0}) until it has that many records.
     */
    private List<JsonNode> kafkajs(String name, ConfiguredProxy proxy, String token, List<String> arguments,
                                   String input, int records) throws Exception {
        List<String> all = new ArrayList<>(arguments);
        all.addAll(kafkajsConnection(proxy));
        return KafkajsRun.events(name, all, Map.of("LEASEHOLD_KAFKAJS_OAUTH_TOKEN", token), cluster.logDir(), input,
                KafkajsRun.untilRecords(records));
    }

    /** The kafkajs client's options for OAUTHBEARER to {@code proxy}, over TLS for the secure one. */
    private List<String> kafkajsConnection(ConfiguredProxy proxy) {
        List<String> options = new ArrayList<>(List.of("--brokers", proxy.address(), "--sasl-mechanism", "oauthbearer",
                "--retries", "2"));
        if (proxy == secure) {
            options.addAll(List.of("--ssl-ca", certs.caCert().toString()));
        }
        return options;
    }

    @Test
    void kafkajsProducesAndConsumesWithASignedTokenAndAnExpiredOneIsRefused() throws Exception {
        String topic = newTopic("oauth-kafkajs");
        String alice = token("alice", FIRST_KEY);
        List<String> sent = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) {
            sent.add("kafkajs-" + i);
        }

        List<JsonNode> produced = kafkajs("kafkajs-oauth-produce", first, alice, List.of("produce", "--topic", topic),
                String.join("\n", sent), 0);
        List<JsonNode> consumed = kafkajs("kafkajs-oauth-consume", second, alice,
                List.of("consume", "--topic", topic, "--group", "g-" + topic), "", RECORDS);

        assertThat(produced.stream().filter(e -> e.path("event").asText().equals("acked")).count())
                .as("kafkajs acks: %s", produced).isEqualTo(RECORDS);
        assertThat(consumed.stream().filter(e -> e.path("event").asText().equals("record"))
                .map(e -> e.path("value").asText()).toList()).containsExactlyInAnyOrderElementsOf(sent);

        double before = failures(first, "token_expired");
        List<JsonNode> refused = kafkajs("kafkajs-oauth-expired", first, expiredToken("alice"),
                List.of("produce", "--topic", topic), "x", 0);
        // kafkajs takes the invalid_token status as success and sends Metadata, which closes the connection.
        assertThat(refused).as("kafkajs with an expired token: %s", refused)
                .noneMatch(event -> event.path("event").asText().equals("acked"))
                .anySatisfy(event -> assertThat(event.path("error").asText()).contains("KafkaJSNumberOfRetriesExceeded"));
        assertThat(failures(first, "token_expired")).isGreaterThan(before);
    }

    @Test
    void javaClientsAndKafkajsProduceAndConsumeOverSaslSslWithKeysFromTheJwksUrl() throws Exception {
        String topic = newTopic("oauth-tls");
        String alice = token("alice", FIRST_KEY);
        List<String> kafkajsSent = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) {
            kafkajsSent.add("kafkajs-tls-" + i);
        }

        List<String> javaSent = StringClients.produce(client(secure, alice), topic, "java-tls-", RECORDS);
        List<JsonNode> produced = kafkajs("kafkajs-oauth-tls-produce", secure, alice,
                List.of("produce", "--topic", topic), String.join("\n", kafkajsSent), 0);
        List<String> javaRead = StringClients.consume(client(secure, alice), topic, "readers-" + UUID.randomUUID(),
                2 * RECORDS);
        List<JsonNode> consumed = kafkajs("kafkajs-oauth-tls-consume", secure, alice,
                List.of("consume", "--topic", topic, "--group", "g-" + topic), "", 2 * RECORDS);

        assertThat(KafkajsRun.count(produced, "acked")).as("kafkajs acks: %s", produced).isEqualTo(RECORDS);
        List<String> all = new ArrayList<>(javaSent);
        all.addAll(kafkajsSent);
        assertThat(javaRead).containsExactlyInAnyOrderElementsOf(all);
        assertThat(consumed.stream().filter(e -> e.path("event").asText().equals("record"))
                .map(e -> e.path("value").asText()).toList()).containsExactlyInAnyOrderElementsOf(all);
        assertThat(secure.metrics().value("leasehold_jwks_refreshes_total", "outcome=\"success\",source=\"url\""))
                .as("keys fetched from the JWKS URL").isGreaterThanOrEqualTo(1);
        assertThat(jwksServer.requests()).isGreaterThanOrEqualTo(1);
    }

    @Test
    void aJavaProducerWhoseLoginRefreshesShortLivedTokensReauthenticatesBeforeEachExpiresAndKeepsProducing()
            throws Exception {
        String topic = newTopic("oauth-reauth");
        double expiredBefore = sessionsExpired(secure);
        Map<String, Object> settings = client(secure, MintingTokenLoginHandler.class,
                MintingTokenLoginHandler.jaasConfig(FIRST_KEY, "alice", SHORT_TOKEN));
        // Refresh at 80-85 % of each token's lifetime, however short, as a client of a real token endpoint would.
        settings.put(SaslConfigs.SASL_LOGIN_REFRESH_MIN_PERIOD_SECONDS, "0");
        settings.put(SaslConfigs.SASL_LOGIN_REFRESH_BUFFER_SECONDS, "0");
        // Three token lifetimes and more; the proxy's 1 h maximum alone would allow one session.
        StringClients.PacedRun run = StringClients.producePaced(settings, topic, SHORT_TOKEN.multipliedBy(3)
                .plusSeconds(2));
        List<String> sent = run.sent();
        assertThat(run.reauthentications()).as("re-authentications with fresh tokens on open connections")
                .isGreaterThanOrEqualTo(2);
        assertThat(run.failedReauthentications()).isZero();
        assertThat(StringClients.consume(client(secure, token("alice", FIRST_KEY)), topic,
                "readers-" + UUID.randomUUID(), sent.size())).containsExactlyInAnyOrderElementsOf(sent);
        assertThat(sessionsExpired(secure)).as("no connection of the producer was closed for an expired session")
                .isEqualTo(expiredBefore);
    }

    @Test
    void kafkajsHoldingOneTokenThatNobodyRefreshesIsRefusedOnceItExpires() throws Exception {
        String topic = newTopic("oauth-stale");
        JwtClaims claims = TestTokens.claims("alice");
        Instant expiry = Instant.now().plus(STALE_TOKEN);
        claims.setExpirationTime(NumericDate.fromSeconds(expiry.getEpochSecond()));
        double expiredBefore = failures(secure, "token_expired");
        List<JsonNode> events = new CopyOnWriteArrayList<>();
        List<String> arguments = new ArrayList<>(List.of("produce", "--topic", topic));
        arguments.addAll(kafkajsConnection(secure));
        try (KafkajsProcess client = KafkajsProcess.start("kafkajs-oauth-stale", arguments,
                Map.of("LEASEHOLD_KAFKAJS_OAUTH_TOKEN", TestTokens.sign(claims, FIRST_KEY)), cluster.logDir(),
                events::add)) {
            client.writeLine("while-valid");
            await().atMost(Duration.ofSeconds(30)).until(() -> KafkajsRun.count(events, "acked") == 1);
            Thread.sleep(Math.max(0, Duration.between(Instant.now(), expiry).toMillis()) + 1_500);
            client.writeLine("after-expiry");
            client.closeInput();
            client.waitFor(Duration.ofSeconds(60));
        }
        assertThat(events).as("kafkajs events").noneMatch(event -> event.path("event").asText().equals("acked")
                && event.path("line").asInt() == 1);
        assertThat(failures(secure, "token_expired")).as("its re-authentication with the expired token was refused")
                .isGreaterThan(expiredBefore);
    }

    private static double sessionsExpired(ConfiguredProxy proxy) throws IOException, InterruptedException {
        return Math.max(0, proxy.metrics().value("leasehold_frames_rejected_total", "reason=\"session_expired\""));
    }

    @Test
    void kcatsUnsecuredJwtIsRefused() throws Exception {
        double before = failures(first, "bad_token") + failures(first, "bad_signature");

        StringClients.KcatRun refused = StringClients.kcat(List.of("kcat", "-b", first.address(),
                "-X", "security.protocol=sasl_plaintext", "-X", "sasl.mechanisms=OAUTHBEARER",
                "-X", "enable.sasl.oauthbearer.unsecure.jwt=true", "-X", "sasl.oauthbearer.config=principal=alice",
                "-L", "-m", "10"), "", dir);

        assertThat(refused.exitCode()).as(refused.stderr()).isNotZero();
        assertThat(refused.stderr()).contains("invalid_token");
        assertThat(failures(first, "bad_token") + failures(first, "bad_signature")).isGreaterThan(before);
    }
}
