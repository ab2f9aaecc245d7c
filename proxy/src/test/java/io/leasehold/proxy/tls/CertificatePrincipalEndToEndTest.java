package io.leasehold.proxy.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.leasehold.proxy.testing.ConfiguredProxy;
import io.leasehold.proxy.testing.StringClients;
import io.leasehold.proxy.testing.TestCertificates;
import io.leasehold.testing.KafkajsProcess;
import io.leasehold.testing.LocalCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Principals from client certificates end to end: a real etcd and reference broker behind two
 * proxy processes whose listeners require client certificates, map their subjects with
 * {@code RULE:^CN=([^,]+),OU=clients$/$1/L} and share one ACL file. The certificate of
 * {@code writer} may write and read {@code certs-*} topics, {@code reader}'s only read them, and
 * {@code admin}'s create them. kafka-clients, kcat and kafkajs present those certificates (no
 * SASL): writes with the writer's go through, writes with the reader's get
 * TOPIC_AUTHORIZATION_FAILED. A certificate no rule maps is closed after its handshake.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CertificatePrincipalEndToEndTest {
    private static final String ACLS = """
            acls:
              - {principal: "User:admin", resourceType: CLUSTER, operations: [ALL], permission: ALLOW}
              - {principal: "User:admin", resourceType: TOPIC, name: "*", operations: [ALL], permission: ALLOW}
              - {principal: "User:writer", resourceType: TOPIC, patternType: PREFIXED, name: certs-,
                 operations: [WRITE, READ], permission: ALLOW}
              - {principal: "User:reader", resourceType: TOPIC, patternType: PREFIXED, name: certs-,
                 operations: [READ], permission: ALLOW}
              - {principal: "User:*", resourceType: GROUP, patternType: PREFIXED, name: readers-,
                 operations: [READ], permission: ALLOW}
            """;
    private static final int RECORDS = 20;

    private Path dir;
    private TestCertificates certs;
    /** A CA the proxies do not trust. */
    private TestCertificates intruders;
    private LocalCluster cluster;
    private ConfiguredProxy first;
    private ConfiguredProxy second;

    @BeforeAll
    void startClusterAndProxies(@TempDir Path tempDir) throws Exception {
        dir = tempDir;
        certs = TestCertificates.generate(dir.resolve("certs"));
        for (String name : List.of("writer", "reader", "admin")) {
            certs.issue(name, "/OU=clients/CN=" + name, "extendedKeyUsage=clientAuth\n");
        }
        certs.issue("stranger", "/OU=outsiders/CN=stranger", "extendedKeyUsage=clientAuth\n");
        intruders = TestCertificates.generate(dir.resolve("other-ca"));
        intruders.issue("intruder", "/OU=clients/CN=intruder", "extendedKeyUsage=clientAuth\n");
        Path acls = Files.writeString(dir.resolve("acls.yaml"), ACLS);
        cluster = LocalCluster.builder("cert-principals").brokers(1).leaseTtl(Duration.ofSeconds(5)).start();
        first = startProxy("cert-proxy-1", acls);
        second = startProxy("cert-proxy-2", acls);
    }

    private ConfiguredProxy startProxy(String name, Path acls) {
        return ConfiguredProxy.builder(cluster, dir, name).listener("""
                tlsCertFile: %s
                tlsKeyFile: %s
                tlsCaFile: %s
                tlsClientAuth: required
                tlsPrincipal:
                  mappingRules: "RULE:^CN=([^,]+),OU=clients$/$1/L"
                """.formatted(certs.cert(TestCertificates.SERVER), certs.key(TestCertificates.SERVER), certs.caCert()))
                .section("authorization: { aclsFile: %s }".formatted(acls))
                .section("audit: { file: %s }".formatted(auditFile(name))).start();
    }

    private Path auditFile(String proxyName) {
        return dir.resolve(proxyName + "-audit.jsonl");
    }

    @AfterAll
    void stopAll() throws IOException {
        ConfiguredProxy.stopAll(cluster, first, second);
    }

    /** kafka-clients settings for {@code proxy} with the client certificate {@code name}. */
    private Map<String, Object> as(String name, ConfiguredProxy proxy) throws IOException {
        return as(name, proxy, certs);
    }

    private Map<String, Object> as(String name, ConfiguredProxy proxy, TestCertificates issuer) throws IOException {
        Map<String, Object> settings = new HashMap<>();
        settings.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, proxy.address());
        settings.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SSL");
        settings.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PEM");
        settings.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, certs.caCert().toString());
        settings.put(SslConfigs.SSL_KEYSTORE_TYPE_CONFIG, "PEM");
        settings.put(SslConfigs.SSL_KEYSTORE_CERTIFICATE_CHAIN_CONFIG, Files.readString(issuer.cert(name)));
        settings.put(SslConfigs.SSL_KEYSTORE_KEY_CONFIG, Files.readString(issuer.key(name)));
        return settings;
    }

    private String topic() throws Exception {
        String topic = "certs-" + UUID.randomUUID();
        StringClients.createTopic(as("admin", first), topic, 3);
        return topic;
    }

    @Test
    void javaClientsWithTheWritersCertificateWriteAndWithTheReadersAreRefusedTheWrite() throws Exception {
        String topic = topic();

        List<String> sent = StringClients.produce(as("writer", first), topic, "java-", RECORDS);
        Map<String, Object> reader = as("reader", second);
        // An idempotent producer would first need IDEMPOTENT_WRITE (or WRITE on some topic), as on Kafka.
        reader.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        assertThatThrownBy(() -> StringClients.produce(reader, topic, "refused-", 1))
                .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(TopicAuthorizationException.class);
        List<String> read = StringClients.consume(as("reader", second), topic, "readers-" + UUID.randomUUID(), RECORDS);

        assertThat(read).containsExactlyInAnyOrderElementsOf(sent);
    }

    /** Runs kcat with the client certificate {@code name} against {@code proxy}. */
    private StringClients.KcatRun kcat(String name, ConfiguredProxy proxy, String input, String... arguments)
            throws Exception {
        List<String> command = new ArrayList<>(List.of("kcat", "-b", proxy.address(), "-X", "security.protocol=ssl",
                "-X", "ssl.ca.location=" + certs.caCert(), "-X", "ssl.certificate.location=" + certs.cert(name),
                "-X", "ssl.key.location=" + certs.key(name)));
        command.addAll(List.of(arguments));
        return StringClients.kcat(command, input, dir);
    }

    @Test
    void kcatWithTheWritersCertificateWritesAndWithTheReadersGetsTopicAuthorizationFailed() throws Exception {
        String topic = topic();
        List<String> sent = IntStream.range(0, RECORDS).mapToObj(i -> "kcat-" + i).toList();
        String lines = String.join("\n", sent) + "\n";

        StringClients.KcatRun written = kcat("writer", first, lines, "-P", "-t", topic, "-X", "acks=all");
        StringClients.KcatRun refused = kcat("reader", second, "refused\n", "-P", "-t", topic, "-X", "acks=all");
        StringClients.KcatRun read = kcat("reader", second, "", "-C", "-t", topic, "-o", "beginning",
                "-c", Integer.toString(RECORDS), "-q");

        assertThat(written.exitCode()).as(written.stderr()).isZero();
        assertThat(refused.exitCode()).as(refused.stderr()).isNotZero();
        assertThat(refused.stderr()).contains("Topic authorization failed");
        assertThat(read.lines()).as(read.stderr()).containsExactlyInAnyOrderElementsOf(sent);
    }

    /** Runs the kafkajs producer with the client certificate {@code name}; returns its JSON events. */
    private List<JsonNode> kafkajsProduce(String name, ConfiguredProxy proxy, String topic, List<String> values)
            throws Exception {
        List<JsonNode> events = new CopyOnWriteArrayList<>();
        try (KafkajsProcess client = KafkajsProcess.start("kafkajs-" + name, List.of("produce", "--topic", topic,
                "--brokers", proxy.address(), "--retries", "2", "--ssl-ca", certs.caCert().toString(),
                "--ssl-cert", certs.cert(name).toString(), "--ssl-key", certs.key(name).toString()), Map.of(),
                cluster.logDir(), events::add)) {
            for (String value : values) {
                client.writeLine(value);
            }
            client.closeInput();
            client.waitFor(Duration.ofSeconds(60));
        }
        return events;
    }

    @Test
    void kafkajsWithTheWritersCertificateWritesAndWithTheReadersGetsTopicAuthorizationFailed() throws Exception {
        String topic = topic();
        List<String> sent = IntStream.range(0, RECORDS).mapToObj(i -> "kafkajs-" + i).toList();

        List<JsonNode> written = kafkajsProduce("writer", first, topic, sent);
        List<JsonNode> refused = kafkajsProduce("reader", second, topic, List.of("refused"));

        assertThat(written.stream().filter(e -> e.path("event").asText().equals("acked")).count())
                .as("kafkajs acks: %s", written).isEqualTo(RECORDS);
        assertThat(refused).as("kafkajs with the reader's certificate").anySatisfy(event ->
                assertThat(event.path("error").asText()).contains("authorized"));
        assertThat(refused).noneMatch(e -> e.path("event").asText().equals("acked"));
        assertThat(StringClients.consume(as("writer", first), topic, "readers-" + UUID.randomUUID(), RECORDS))
                .containsExactlyInAnyOrderElementsOf(sent);
    }

    @Test
    void certificateNoRuleMapsIsClosedAfterItsHandshakeAndCounted() throws Exception {
        String failures = "leasehold_client_tls_handshake_failures_total";
        double before = Math.max(0, first.metrics().value(failures, "reason=\"no_principal\""));
        Map<String, Object> settings = as("stranger", first);
        settings.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5000);
        settings.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 4000);

        try (Admin stranger = Admin.create(settings)) {
            assertThatThrownBy(() -> stranger.describeCluster().clusterId().get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class);
        }

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(first.metrics()
                .value(failures, "reason=\"no_principal\"")).isGreaterThan(before));
        assertThat(Files.readString(first.process().stderrLog()))
                .contains("names no principal: No rules apply to CN=stranger,OU=outsiders");
    }

    @Test
    void auditFileHoldsTheAcceptedCertificateTheUnmappedOneAndTheUntrustedOne() throws Exception {
        try (Admin writer = Admin.create(as("writer", second))) {
            writer.describeCluster().clusterId().get(30, TimeUnit.SECONDS);
        }
        for (Map<String, Object> settings : List.of(as("stranger", second), as("intruder", second, intruders))) {
            settings.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5000);
            settings.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 4000);
            try (Admin refused = Admin.create(settings)) {
                assertThatThrownBy(() -> refused.describeCluster().clusterId().get(30, TimeUnit.SECONDS))
                        .isInstanceOf(ExecutionException.class);
            }
        }

        ObjectMapper json = new ObjectMapper();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            // The class's other tests share this proxy, so its file also holds their requests' lines.
            List<JsonNode> lines = new ArrayList<>();
            for (String line : Files.readAllLines(auditFile("cert-proxy-2"))) {
                JsonNode parsed = json.readTree(line);
                if (parsed.get("api").asText().equals("TLS")) {
                    lines.add(parsed);
                }
            }
            assertThat(lines).allSatisfy(line -> assertThat(line.get("operation").asText()).isEqualTo("AUTHENTICATE"));
            assertThat(lines).anySatisfy(line -> {
                assertThat(line.get("principal").asText()).isEqualTo("User:writer");
                assertThat(line.get("decision").asText()).isEqualTo("ALLOW");
            });
            assertThat(lines).anySatisfy(line -> {
                assertThat(line.get("principal").asText()).isEqualTo("User:ANONYMOUS");
                assertThat(line.get("resourceName").asText()).isEqualTo("CN=stranger,OU=outsiders");
                assertThat(line.get("decision").asText()).isEqualTo("DENY");
            });
            assertThat(lines).anySatisfy(line -> {
                assertThat(line.get("principal").asText()).isEqualTo("User:ANONYMOUS");
                assertThat(line.get("resourceName").isNull()).isTrue();
                assertThat(line.get("decision").asText()).isEqualTo("DENY");
            });
        });
    }
}
