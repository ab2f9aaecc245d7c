package io.leasehold.proxy.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.leasehold.proxy.testing.ConfiguredProxy;
import io.leasehold.proxy.testing.PrometheusScrape;
import io.leasehold.proxy.testing.StringClients;
import io.leasehold.testing.KafkajsProcess;
import io.leasehold.testing.LocalCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.config.SaslConfigs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * KIP-368 re-authentication end to end: a proxy process with a 3 s session lifetime in front of
 * a real etcd and reference broker. kafka-clients and kafkajs re-authenticate on their open
 * connections and keep producing without an error; kcat (librdkafka 2.0.2, which predates
 * KIP-368 support in librdkafka 2.2) is closed on its first request after its session ends.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SaslReauthenticationTest {
    private static final String PASSWORD = "carol-secret-3";
    /** Long enough for kcat to start and read its first records on a loaded machine (3 s was not). */
    private static final Duration LIFETIME = Duration.ofSeconds(5);

    private Path dir;
    private LocalCluster cluster;
    private ConfiguredProxy proxy;
    private int port;
    private PrometheusScrape metrics;

    @BeforeAll
    void start(@TempDir Path tempDir) throws Exception {
        dir = tempDir;
        Path users = Files.writeString(dir.resolve("users.yaml"), "users: [{name: carol, password: \"" + PASSWORD
                + "\"}]\n");
        cluster = LocalCluster.builder("reauth").brokers(1).leaseTtl(Duration.ofSeconds(5)).start();
        proxy = ConfiguredProxy.builder(cluster, dir, "reauth-proxy").listener("""
                sasl:
                  mechanisms: [SCRAM-SHA-512, PLAIN]
                  usersFile: %s
                  connectionsMaxReauth: %dms
                """.formatted(users, LIFETIME.toMillis())).start();
        port = proxy.port();
        metrics = proxy.metrics();
    }

    @AfterAll
    void stop() throws IOException {
        ConfiguredProxy.stopAll(cluster, proxy);
    }

    private Map<String, Object> client(String mechanism) {
        Map<String, Object> settings = new HashMap<>();
        settings.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port);
        settings.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        settings.put(SaslConfigs.SASL_MECHANISM, mechanism);
        String module = mechanism.equals("PLAIN") ? "org.apache.kafka.common.security.plain.PlainLoginModule"
                : "org.apache.kafka.common.security.scram.ScramLoginModule";
        settings.put(SaslConfigs.SASL_JAAS_CONFIG, module + " required username=\"carol\" password=\"" + PASSWORD
                + "\";");
        return settings;
    }

    private String newTopic() throws Exception {
        String topic = "reauth-" + UUID.randomUUID();
        StringClients.createTopic(client("SCRAM-SHA-512"), topic, 2);
        return topic;
    }

    private double sessionsExpired() throws Exception {
        return Math.max(0, metrics.value("leasehold_frames_rejected_total", "reason=\"session_expired\""));
    }

    @Test
    void kafkaClientsProducerReauthenticatesOnItsConnectionsAcrossSeveralSessionsWithoutErrors() throws Exception {
        String topic = newTopic();
        double expiredBefore = sessionsExpired();
        // Three session lifetimes and more.
        StringClients.PacedRun run = StringClients.producePaced(client("SCRAM-SHA-512"), topic,
                LIFETIME.multipliedBy(3).plusSeconds(2));
        List<String> sent = run.sent();
        assertThat(run.reauthentications()).as("re-authentications on open connections").isGreaterThanOrEqualTo(2);
        assertThat(run.failedReauthentications()).isZero();
        assertThat(StringClients.consume(client("PLAIN"), topic, "readers-" + UUID.randomUUID(), sent.size()))
                .containsExactlyInAnyOrderElementsOf(sent);
        assertThat(sessionsExpired()).as("no kafka-clients connection was closed for an expired session")
                .isEqualTo(expiredBefore);
    }

    /**
     * kcat 1.7.1 (librdkafka 2.0.2) speaks SaslAuthenticate v0 and never re-authenticates: the
     * proxy serves it during its session and closes its connection on the first request after.
     * Its consumer then ends with "All broker connections are down" when that was its only
     * broker, as it would against a Kafka broker with {@code connections.max.reauth.ms}.
     */
    @Test
    void kcatWhichDoesNotReauthenticateIsServedDuringItsSessionAndClosedAfterIt() throws Exception {
        String topic = newTopic();
        double expiredBefore = sessionsExpired();
        List<String> first = StringClients.produce(client("SCRAM-SHA-512"), topic, "early-", 5);
        CompletableFuture<StringClients.KcatRun> reader = CompletableFuture.supplyAsync(() -> {
            try {
                return StringClients.kcat(List.of("kcat", "-b", "127.0.0.1:" + port, "-X",
                        "security.protocol=sasl_plaintext", "-X", "sasl.mechanisms=SCRAM-SHA-512", "-X",
                        "sasl.username=carol", "-X", "sasl.password=" + PASSWORD, "-C", "-t", topic, "-o",
                        "beginning", "-c", "10", "-q"), "", dir);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        // kcat keeps fetching on its connections past their session lifetime, waiting for five more records.
        await().atMost(Duration.ofSeconds(60)).until(() -> sessionsExpired() > expiredBefore);
        StringClients.produce(client("SCRAM-SHA-512"), topic, "late-", 5);

        StringClients.KcatRun consumed = reader.get(90, TimeUnit.SECONDS);
        assertThat(consumed.lines()).as("kcat during its session: %s", consumed.stderr()).containsAll(first);
    }

    @Test
    void kafkajsReauthenticatesAndKeepsProducing() throws Exception {
        String topic = newTopic();
        List<JsonNode> events = new CopyOnWriteArrayList<>();
        double expiredBefore = sessionsExpired();
        double successesBefore = metrics.value("leasehold_client_authentications_total",
                "mechanism=\"SCRAM-SHA-512\",outcome=\"success\"");
        try (KafkajsProcess client = KafkajsProcess.start("kafkajs-reauth", List.of("produce", "--topic", topic,
                "--brokers", "127.0.0.1:" + port, "--sasl-mechanism", "scram-sha-512", "--sasl-username", "carol",
                "--retries", "2"), Map.of("LEASEHOLD_KAFKAJS_SASL_PASSWORD", PASSWORD), cluster.logDir(),
                events::add)) {
            for (int i = 0; i < 8; i++) {
                client.writeLine("kafkajs-" + i);
                Thread.sleep(LIFETIME.toMillis() / 2);
            }
            client.closeInput();
            client.waitFor(Duration.ofSeconds(60));
        }
        assertThat(events.stream().filter(e -> e.path("event").asText().equals("acked")).count())
                .as("kafkajs acks: %s", events).isEqualTo(8);
        assertThat(events).noneMatch(e -> e.path("event").asText().equals("error"));
        assertThat(metrics.value("leasehold_client_authentications_total",
                "mechanism=\"SCRAM-SHA-512\",outcome=\"success\"")).as("kafkajs logged in again")
                .isGreaterThanOrEqualTo(successesBefore + 3);
        assertThat(sessionsExpired()).as("kafkajs re-authenticated on its connections rather than being closed")
                .isEqualTo(expiredBefore);
    }
}
