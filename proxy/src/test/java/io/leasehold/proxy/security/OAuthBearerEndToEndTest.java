package io.leasehold.proxy.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.leasehold.proxy.testing.KafkajsRun;
import io.leasehold.proxy.testing.PrometheusScrape;
import io.leasehold.proxy.testing.StringClients;
import io.leasehold.proxy.testing.TestTokens;
import io.leasehold.routing.testing.LoopbackPorts;
import io.leasehold.testing.JavaCommand;
import io.leasehold.testing.LocalCluster;
import io.leasehold.testing.ManagedProcess;
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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.config.SaslConfigs;
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
 * SASL/OAUTHBEARER end to end: a real etcd and reference brokers behind two proxy processes that
 * check tokens against one mounted JWKS file. kafka-clients (with a login handler that hands out a
 * JWT signed by the test key) and kafkajs ({@code oauthBearerProvider}) produce through one proxy
 * and consume through the other; expired, wrong-issuer, wrong-audience and foreign-signed tokens
 * get each client's authentication error and are counted by reason; a new key added to the JWKS
 * file is taken without a restart. kcat (librdkafka 2.0.2 here) has no way to send a signed token
 * (its build has neither the {@code oidc} token-endpoint method nor a token option; only the
 * unsecured "alg: none" JWT builder), so it is shown refused with that.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OAuthBearerEndToEndTest {
    private static final String AUTHENTICATIONS = "leasehold_client_authentications_total";
    private static final int RECORDS = 40;
    private static final RsaJsonWebKey FIRST_KEY = TestTokens.newKey("first");
    private static final RsaJsonWebKey ROTATED_KEY = TestTokens.newKey("rotated");
    private static final RsaJsonWebKey FOREIGN_KEY = TestTokens.newKey("foreign");

    private Path dir;
    private Path jwks;
    private LocalCluster cluster;
    private Proxy first;
    private Proxy second;

    private record Proxy(ManagedProcess process, int port, PrometheusScrape metrics) {
        String address() {
            return "127.0.0.1:" + port;
        }

        double failures(String reason) throws IOException, InterruptedException {
            return Math.max(0, metrics.value(AUTHENTICATIONS,
                    "mechanism=\"OAUTHBEARER\",outcome=\"failure\",reason=\"" + reason + "\""));
        }
    }

    @BeforeAll
    void startClusterAndProxies(@TempDir Path tempDir) throws Exception {
        dir = tempDir;
        jwks = new TestTokens().publish(FIRST_KEY).writeJwks(dir.resolve("jwks.json"));
        cluster = LocalCluster.builder("oauth").brokers(2).leaseTtl(Duration.ofSeconds(5)).start();
        first = startProxy("oauth-proxy-1");
        second = startProxy("oauth-proxy-2");
    }

    @AfterAll
    void stopAll() throws IOException {
        if (cluster == null) {
            return;
        }
        try {
            for (Proxy proxy : List.of(first, second)) {
                assertThat(proxy.process().terminate(Duration.ofSeconds(30))).as("exit code of " + proxy).isZero();
                assertThat(Files.readString(proxy.process().stderrLog())).doesNotContain("LEAK:");
            }
        } finally {
            cluster.close();
        }
    }

    private Proxy startProxy(String name) throws IOException {
        int[] ports = LoopbackPorts.take(2);
        int port = ports[0];
        int adminPort = ports[1];
        Path config = Files.writeString(dir.resolve(name + ".yaml"), """
                listener:
                  host: 127.0.0.1
                  port: %d
                  advertisedHost: 127.0.0.1
                  sasl:
                    mechanisms: [OAUTHBEARER]
                    oauthbearer:
                      jwksFile: %s
                      issuer: %s
                      audience: [%s]
                etcd:     { endpoints: ["%s"], prefix: %s }
                backends: { bootstrap: [%s] }
                admin:    { host: 127.0.0.1, port: %d }
                """.formatted(port, jwks, TestTokens.ISSUER, TestTokens.AUDIENCE, cluster.etcdEndpoint(),
                cluster.prefix(), quotedList(cluster.bootstrapServers()), adminPort));
        List<String> jvm = new ArrayList<>(JavaCommand.DEFAULT_JVM_OPTIONS);
        jvm.add("-Dio.netty.leakDetection.level=paranoid");
        ManagedProcess process = ManagedProcess.start(name, new JavaCommand(System.getProperty("java.class.path"), jvm)
                .command("io.leasehold.proxy.Main", List.of("--config", config.toString())), cluster.logDir(), Map.of());
        process.awaitReady(Duration.ofSeconds(60));
        return new Proxy(process, port, new PrometheusScrape("http://127.0.0.1:" + adminPort));
    }

    private static String quotedList(String commaSeparated) {
        return "\"" + String.join("\", \"", commaSeparated.split(",")) + "\"";
    }

    /** kafka-clients settings for {@code proxy} presenting {@code token}. */
    private static Map<String, Object> client(Proxy proxy, String token) {
        Map<String, Object> settings = new HashMap<>();
        settings.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, proxy.address());
        settings.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        settings.put(SaslConfigs.SASL_MECHANISM, "OAUTHBEARER");
        settings.put(SaslConfigs.SASL_LOGIN_CALLBACK_HANDLER_CLASS, FixedTokenLoginHandler.class.getName());
        settings.put(SaslConfigs.SASL_JAAS_CONFIG,
                "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required token=\"" + token + "\";");
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

    private static void refusedByKafkaClients(Proxy proxy, String token, String what) {
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
        for (Proxy proxy : List.of(first, second)) {
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
            Proxy proxy = refused.reason().hashCode() % 2 == 0 ? first : second;
            double before = proxy.failures(refused.reason());

            refusedByKafkaClients(proxy, refused.token(), refused.reason());

            assertThat(proxy.failures(refused.reason())).as("%s counted on %s", refused.reason(), proxy.address())
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
    private List<JsonNode> kafkajs(String name, Proxy proxy, String token, List<String> arguments, String input,
                                   int records) throws Exception {
        List<String> all = new ArrayList<>(arguments);
        all.addAll(List.of("--brokers", proxy.address(), "--sasl-mechanism", "oauthbearer", "--retries", "2"));
        return KafkajsRun.events(name, all, Map.of("LEASEHOLD_KAFKAJS_OAUTH_TOKEN", token), cluster.logDir(), input,
                KafkajsRun.untilRecords(records));
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

        double before = first.failures("token_expired");
        List<JsonNode> refused = kafkajs("kafkajs-oauth-expired", first, expiredToken("alice"),
                List.of("produce", "--topic", topic), "x", 0);
        // kafkajs takes the invalid_token status as success and sends Metadata, which closes the connection.
        assertThat(refused).as("kafkajs with an expired token: %s", refused)
                .noneMatch(event -> event.path("event").asText().equals("acked"))
                .anySatisfy(event -> assertThat(event.path("error").asText()).contains("KafkaJSNumberOfRetriesExceeded"));
        assertThat(first.failures("token_expired")).isGreaterThan(before);
    }

    @Test
    void kcatsUnsecuredJwtIsRefused() throws Exception {
        double before = first.failures("bad_token") + first.failures("bad_signature");

        StringClients.KcatRun refused = StringClients.kcat(List.of("kcat", "-b", first.address(),
                "-X", "security.protocol=sasl_plaintext", "-X", "sasl.mechanisms=OAUTHBEARER",
                "-X", "enable.sasl.oauthbearer.unsecure.jwt=true", "-X", "sasl.oauthbearer.config=principal=alice",
                "-L", "-m", "10"), "", dir);

        assertThat(refused.exitCode()).as(refused.stderr()).isNotZero();
        assertThat(refused.stderr()).contains("invalid_token");
        assertThat(first.failures("bad_token") + first.failures("bad_signature")).isGreaterThan(before);
    }
}
