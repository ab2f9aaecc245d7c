package io.leasehold.proxy.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.leasehold.proxy.testing.ConfiguredProxy;
import io.leasehold.proxy.testing.KafkajsRun;
import io.leasehold.proxy.testing.PrometheusScrape;
import io.leasehold.proxy.testing.StringClients;
import io.leasehold.proxy.testing.TestCertificates;
import io.leasehold.testing.LocalCluster;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * SASL on the proxy's Kafka listener end to end: a real etcd and reference broker behind two
 * proxy processes sharing one users file, one SASL_PLAINTEXT and one SASL_SSL. kafka-clients,
 * kcat (librdkafka 2.0.2) and kafkajs produce through the first and consume through the second
 * with SCRAM-SHA-512 and PLAIN; wrong passwords and unknown users get each client's normal
 * authentication error and are counted in {@code /metrics}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SaslListenerTest {

    private static final String AUTHENTICATIONS = "leasehold_client_authentications_total";
    private static final String ALICE_PASSWORD = "alice-secret-1";
    private static final String BOB_PASSWORD = "bob-secret-2";
    private static final int RECORDS = 60;

    private Path dir;
    private TestCertificates certs;
    private LocalCluster cluster;
    private SaslProxy plaintext;
    private SaslProxy tls;

    /** A proxy whose listener requires SASL; {@code tls} says whether TLS is under it. */
    private record SaslProxy(ConfiguredProxy proxy, boolean tls) {
        String address() {
            return proxy.address();
        }

        PrometheusScrape metrics() {
            return proxy.metrics();
        }
    }

    @BeforeAll
    void startClusterAndProxies(@TempDir Path tempDir) throws Exception {
        dir = tempDir;
        certs = TestCertificates.generate(dir.resolve("certs"));
        Path users = Files.writeString(dir.resolve("users.yaml"), "users:\n  - name: alice\n    password: \""
                + ALICE_PASSWORD + "\"\n" + scramOnlyEntry("bob", BOB_PASSWORD));
        cluster = LocalCluster.builder("sasl").brokers(1).leaseTtl(Duration.ofSeconds(5)).start();
        plaintext = startProxy("sasl-plaintext-proxy", users, "");
        tls = startProxy("sasl-ssl-proxy", users, "tlsCertFile: %s\ntlsKeyFile: %s\n".formatted(
                certs.cert(TestCertificates.SERVER), certs.key(TestCertificates.SERVER)));
    }

    /** The users-file entry {@code users add} prints for {@code name}: SCRAM credentials only, no password. */
    private static String scramOnlyEntry(String name, String password) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int exit = new UsersCommand(new ByteArrayInputStream((password + "\n").getBytes(StandardCharsets.UTF_8)),
                new PrintStream(out, true, StandardCharsets.UTF_8), System.err).add(name);
        assertThat(exit).isZero();
        String entry = out.toString(StandardCharsets.UTF_8);
        assertThat(entry).doesNotContain(password).contains("scramSha512:").contains("scramSha256:");
        return entry.lines().map(line -> "  " + line + "\n").reduce("", String::concat);
    }

    @AfterAll
    void stopAll() throws IOException {
        if (cluster == null) {
            return;
        }
        try {
            for (SaslProxy proxy : List.of(plaintext, tls)) {
                assertThat(proxy.proxy().stop()).doesNotContain(ALICE_PASSWORD).doesNotContain(BOB_PASSWORD);
            }
        } finally {
            cluster.close();
        }
    }

    private SaslProxy startProxy(String name, Path users, String tlsKeys) {
        return new SaslProxy(ConfiguredProxy.builder(cluster, dir, name).listener(tlsKeys).listener("""
                sasl:
                  mechanisms: [SCRAM-SHA-512, SCRAM-SHA-256, PLAIN]
                  usersFile: %s
                """.formatted(users)).start(), !tlsKeys.isEmpty());
    }

    /** kafka-clients settings for {@code proxy} as {@code user} with {@code mechanism}. */
    private Map<String, Object> client(SaslProxy proxy, String mechanism, String user, String password) {
        Map<String, Object> settings = new HashMap<>();
        settings.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, proxy.address());
        settings.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, proxy.tls() ? "SASL_SSL" : "SASL_PLAINTEXT");
        settings.put(SaslConfigs.SASL_MECHANISM, mechanism);
        String module = mechanism.equals("PLAIN") ? "org.apache.kafka.common.security.plain.PlainLoginModule"
                : "org.apache.kafka.common.security.scram.ScramLoginModule";
        settings.put(SaslConfigs.SASL_JAAS_CONFIG, module + " required username=\"" + user + "\" password=\""
                + password + "\";");
        if (proxy.tls()) {
            settings.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PEM");
            settings.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, certs.caCert().toString());
        }
        return settings;
    }

    private void createTopic(String topic) throws Exception {
        StringClients.createTopic(client(plaintext, "SCRAM-SHA-512", "alice", ALICE_PASSWORD), topic, 3);
    }

    private static List<String> produce(Map<String, Object> connection, String topic, String prefix)
            throws Exception {
        return StringClients.produce(connection, topic, prefix, RECORDS);
    }

    private static List<String> consume(Map<String, Object> connection, String topic, int expected) {
        return StringClients.consume(connection, topic, "readers-" + UUID.randomUUID(), expected);
    }

    @Test
    void javaClientsProduceAndConsumeWithEveryMechanismThroughBothProxies() throws Exception {
        record Login(String mechanism, String user, String password) { }
        for (Login login : List.of(new Login("SCRAM-SHA-512", "alice", ALICE_PASSWORD),
                new Login("SCRAM-SHA-512", "bob", BOB_PASSWORD), new Login("SCRAM-SHA-256", "bob", BOB_PASSWORD),
                new Login("PLAIN", "alice", ALICE_PASSWORD))) {
            String topic = "sasl-java-" + UUID.randomUUID();
            createTopic(topic);

            List<String> sent = produce(client(plaintext, login.mechanism(), login.user(), login.password()), topic,
                    login.mechanism() + "-");
            List<String> read = consume(client(tls, login.mechanism(), login.user(), login.password()), topic,
                    sent.size());

            assertThat(read).as(login.toString()).containsExactlyInAnyOrderElementsOf(sent);
        }
        for (SaslProxy proxy : List.of(plaintext, tls)) {
            assertThat(proxy.metrics().value(AUTHENTICATIONS, "mechanism=\"SCRAM-SHA-256\",outcome=\"success\""))
                    .as("SCRAM-SHA-256 successes on " + proxy.address()).isGreaterThanOrEqualTo(1);
        }
    }

    @Test
    void wrongPasswordsUnknownUsersAndPlainWithoutPasswordGetKafkaClientsAuthenticationError() throws Exception {
        record Refused(SaslProxy proxy, String mechanism, String user, String password, String reason) { }
        for (Refused refused : List.of(
                new Refused(plaintext, "SCRAM-SHA-512", "alice", "wrong", "bad_credentials"),
                new Refused(tls, "SCRAM-SHA-512", "mallory", "anything", "unknown_user"),
                new Refused(plaintext, "PLAIN", "alice", "wrong", "bad_credentials"),
                new Refused(tls, "PLAIN", "bob", BOB_PASSWORD, "unknown_user"))) {
            double before = refused.proxy().metrics().value(AUTHENTICATIONS, "mechanism=\"" + refused.mechanism()
                    + "\",outcome=\"failure\",reason=\"" + refused.reason() + "\"");
            try (Admin admin = Admin.create(client(refused.proxy(), refused.mechanism(), refused.user(),
                    refused.password()))) {
                assertThatThrownBy(() -> admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS))
                        .as(refused.toString()).isInstanceOf(ExecutionException.class)
                        .hasCauseInstanceOf(SaslAuthenticationException.class);
            }
            double after = refused.proxy().metrics().value(AUTHENTICATIONS, "mechanism=\"" + refused.mechanism()
                    + "\",outcome=\"failure\",reason=\"" + refused.reason() + "\"");
            assertThat(after).as("failures counted for " + refused).isGreaterThan(Math.max(before, 0));
        }
    }

    /**
     * A client that has not authenticated announces a frame over the 512 KiB cap (100 MiB, and
     * 2 MiB, which is under {@code limits.maxFrameBytes}) and sends part of it: the proxy closes
     * the connection from the length prefix, before the rest arrives, holds none of it in its
     * memory budget, counts it and logs the client's address.
     */
    @Test
    void unauthenticatedFrameOverTheCapIsRefusedFromItsLengthPrefixWithoutBufferingIt() throws Exception {
        String rejected = "leasehold_frames_rejected_total";
        for (int announced : List.of(100 << 20, 2 << 20)) {
            // Refusal warnings are limited to one per reason and client address per second.
            Thread.sleep(1100);
            double before = Math.max(0, plaintext.metrics().value(rejected, "reason=\"oversized_unauthenticated\""));
            try (Socket socket = new Socket("127.0.0.1", plaintext.proxy().port())) {
                socket.setSoTimeout(10_000);
                String client = "/127.0.0.1:" + socket.getLocalPort();

                assertThat(closedWhileSending(socket, announced)).as("the proxy closed the connection").isTrue();
                assertThat(plaintext.metrics().value("leasehold_memory_budget_used_bytes", ""))
                        .as("bytes of the refused frame held").isLessThan(16 * 1024);
                assertThat(plaintext.metrics().value(rejected, "reason=\"oversized_unauthenticated\""))
                        .isEqualTo(before + 1);
                await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(Files.readString(
                        plaintext.proxy().process().stderrLog())).contains("Closing client " + client + ": frame "
                        + "rejected: frame of " + announced + " bytes before SASL authentication (at most 524288)"));
            }
        }
    }

    /**
     * Sends the length prefix {@code announced} and 256 KiB of the frame (under the cap: a proxy
     * that buffered before checking would hold it and wait for more); whether the proxy closed
     * the connection meanwhile or within the socket's read timeout after.
     */
    private static boolean closedWhileSending(Socket socket, int announced) throws IOException {
        try {
            OutputStream out = socket.getOutputStream();
            out.write(ByteBuffer.allocate(4).putInt(announced).array());
            for (int i = 0; i < 16; i++) {
                out.write(new byte[16 * 1024]);
            }
            out.flush();
            return socket.getInputStream().read() == -1;
        } catch (SocketException reset) {
            return true;
        }
    }

    /** Runs kcat against {@code proxy} with SASL; returns its exit code, stdout lines and stderr. */
    private StringClients.KcatRun kcat(SaslProxy proxy, String mechanism, String user, String password, String input,
                         String... arguments) throws Exception {
        List<String> command = new ArrayList<>(List.of("kcat", "-b", proxy.address(),
                "-X", "security.protocol=" + (proxy.tls() ? "sasl_ssl" : "sasl_plaintext"),
                "-X", "sasl.mechanisms=" + mechanism, "-X", "sasl.username=" + user, "-X", "sasl.password=" + password));
        if (proxy.tls()) {
            command.addAll(List.of("-X", "ssl.ca.location=" + certs.caCert()));
        }
        command.addAll(List.of(arguments));
        return StringClients.kcat(command, input, dir);
    }

    @Test
    void kcatProducesAndConsumesWithScramSha512AndPlain() throws Exception {
        for (String mechanism : List.of("SCRAM-SHA-512", "PLAIN")) {
            String topic = "sasl-kcat-" + UUID.randomUUID();
            createTopic(topic);
            StringBuilder lines = new StringBuilder();
            List<String> sent = new ArrayList<>();
            for (int i = 0; i < RECORDS; i++) {
                sent.add("kcat-" + mechanism + "-" + i);
                lines.append(sent.get(i)).append('\n');
            }

            StringClients.KcatRun produced = kcat(plaintext, mechanism, "alice", ALICE_PASSWORD, lines.toString(),
                    "-P", "-t", topic, "-X", "acks=all");
            StringClients.KcatRun consumed = kcat(tls, mechanism, "alice", ALICE_PASSWORD, "",
                    "-C", "-t", topic, "-o", "beginning", "-c", Integer.toString(RECORDS), "-q");

            assertThat(produced.exitCode()).as("kcat produce with %s: %s", mechanism, produced.stderr()).isZero();
            assertThat(consumed.lines()).as("kcat consume with %s: %s", mechanism, consumed.stderr())
                    .containsExactlyInAnyOrderElementsOf(sent);
        }
    }

    @Test
    void kcatWithAWrongPasswordFailsAuthentication() throws Exception {
        StringClients.KcatRun refused = kcat(plaintext, "SCRAM-SHA-512", "alice", "wrong", "", "-L", "-m", "10");

        assertThat(refused.exitCode()).isNotZero();
        assertThat(refused.stderr()).contains("Authentication failed");
    }

    /**
     * Runs the kafkajs client with SASL and returns its JSON events: a producer until it has sent
     * {@code input} and exited, a consumer ({@code records > 0}) until it has that many records.
     */
    private List<JsonNode> kafkajs(String name, SaslProxy proxy, String mechanism, String user, String password,
                                   List<String> arguments, String input, int records) throws Exception {
        List<String> all = new ArrayList<>(arguments);
        all.addAll(List.of("--brokers", proxy.address(), "--sasl-mechanism", mechanism.toLowerCase(),
                "--sasl-username", user, "--retries", "2"));
        if (proxy.tls()) {
            all.addAll(List.of("--ssl-ca", certs.caCert().toString()));
        }
        return KafkajsRun.events(name, all, Map.of("LEASEHOLD_KAFKAJS_SASL_PASSWORD", password), cluster.logDir(),
                input, KafkajsRun.untilRecords(records));
    }

    @Test
    void kafkajsProducesAndConsumesWithScramSha512AndPlainAndIsRefusedAWrongPassword() throws Exception {
        for (String mechanism : List.of("SCRAM-SHA-512", "PLAIN")) {
            String topic = "sasl-kafkajs-" + UUID.randomUUID();
            createTopic(topic);
            List<String> sent = new ArrayList<>();
            for (int i = 0; i < RECORDS; i++) {
                sent.add("kafkajs-" + mechanism + "-" + i);
            }

            List<JsonNode> produced = kafkajs("kafkajs-produce-" + mechanism, plaintext, mechanism, "alice",
                    ALICE_PASSWORD, List.of("produce", "--topic", topic), String.join("\n", sent), 0);
            List<JsonNode> consumed = kafkajs("kafkajs-consume-" + mechanism, tls, mechanism, "alice",
                    ALICE_PASSWORD, List.of("consume", "--topic", topic, "--group", "g-" + topic), "", RECORDS);

            assertThat(produced.stream().filter(e -> e.path("event").asText().equals("acked")).count())
                    .as("kafkajs acks with %s: %s", mechanism, produced).isEqualTo(RECORDS);
            assertThat(consumed.stream().filter(e -> e.path("event").asText().equals("record"))
                    .map(e -> e.path("value").asText()).toList()).as("kafkajs reads with " + mechanism)
                    .containsExactlyInAnyOrderElementsOf(sent);
        }

        List<JsonNode> refused = kafkajs("kafkajs-refused", plaintext, "SCRAM-SHA-512", "alice", "wrong",
                List.of("produce", "--topic", "unused"), "x", 0);
        assertThat(refused).anySatisfy(event -> assertThat(event.path("error").asText())
                .contains("KafkaJSSASLAuthenticationError"));
    }
}
