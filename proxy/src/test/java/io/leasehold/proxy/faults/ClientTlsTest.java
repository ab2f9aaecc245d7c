package io.leasehold.proxy.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.leasehold.proxy.testing.ConfiguredProxy;
import io.leasehold.proxy.testing.StringClients;
import io.leasehold.proxy.testing.TestCertificates;
import io.leasehold.testing.JavaCommand;
import io.leasehold.testing.LocalCluster;
import io.leasehold.testing.ManagedProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS on the proxy's Kafka listener, configured only in its YAML file, end to end: a real etcd,
 * a reference broker and two proxy processes, one with server TLS and one requiring client
 * certificates, driven by kafka-clients and kcat with certificates generated for this test.
 * Failed handshakes close only their own connection, are counted in /metrics and logged at most
 * once each (rate-limited per client address).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClientTlsTest {

    private static final String HANDSHAKE_FAILURES = "leasehold_client_tls_handshake_failures_total";

    private Path dir;
    private TestCertificates certs;
    private LocalCluster cluster;
    private ConfiguredProxy serverTls;
    private ConfiguredProxy mutualTls;

    @BeforeAll
    void startClusterAndProxies(@TempDir Path tempDir) throws Exception {
        dir = tempDir;
        certs = TestCertificates.generate(dir.resolve("certs"));
        cluster = LocalCluster.builder("client-tls").brokers(1).leaseTtl(Duration.ofSeconds(5)).start();
        serverTls = startProxy("tls-proxy", "");
        mutualTls = startProxy("mtls-proxy", "tlsCaFile: %s\ntlsClientAuth: required".formatted(certs.caCert()));
    }

    @AfterAll
    void stopAll() throws IOException {
        ConfiguredProxy.stopAll(cluster, serverTls, mutualTls);
    }

    /** Starts a proxy whose listener has the test's server certificate plus {@code moreListenerKeys}. */
    private ConfiguredProxy startProxy(String name, String moreListenerKeys) {
        return ConfiguredProxy.builder(cluster, dir, name).listener("tlsCertFile: %s\ntlsKeyFile: %s\n%s".formatted(
                certs.cert(TestCertificates.SERVER), certs.key(TestCertificates.SERVER), moreListenerKeys)).start();
    }

    /** kafka-clients settings for TLS to the proxy: trust the test CA (PEM), present the client certificate if asked. */
    private Map<String, Object> ssl(ConfiguredProxy proxy, boolean clientCertificate) throws IOException {
        Map<String, Object> settings = new HashMap<>();
        settings.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, proxy.address());
        settings.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SSL");
        settings.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PEM");
        settings.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, certs.caCert().toString());
        if (clientCertificate) {
            settings.put(SslConfigs.SSL_KEYSTORE_TYPE_CONFIG, "PEM");
            settings.put(SslConfigs.SSL_KEYSTORE_CERTIFICATE_CHAIN_CONFIG,
                    Files.readString(certs.cert(TestCertificates.CLIENT)));
            settings.put(SslConfigs.SSL_KEYSTORE_KEY_CONFIG, Files.readString(certs.key(TestCertificates.CLIENT)));
        }
        return settings;
    }

    private static void createTopic(Map<String, Object> clientSettings, String topic, int partitions)
            throws Exception {
        StringClients.createTopic(clientSettings, topic, partitions);
    }

    private static List<String> produce(Map<String, Object> clientSettings, String topic, String prefix, int count)
            throws Exception {
        return StringClients.produce(clientSettings, topic, prefix, count);
    }

    private static List<String> consume(Map<String, Object> clientSettings, String topic, int expected) {
        return StringClients.consume(clientSettings, topic, "readers-" + topic, expected);
    }

    /** Runs kcat against {@code proxy} over TLS with {@code input} on stdin; fails unless it exits 0 in time. */
    private List<String> kcat(ConfiguredProxy proxy, boolean clientCertificate, String input, String... arguments)
            throws Exception {
        List<String> command = new ArrayList<>(List.of("kcat", "-b", proxy.address(), "-X", "security.protocol=ssl",
                "-X", "ssl.ca.location=" + certs.caCert()));
        if (clientCertificate) {
            command.addAll(List.of("-X", "ssl.certificate.location=" + certs.cert(TestCertificates.CLIENT),
                    "-X", "ssl.key.location=" + certs.key(TestCertificates.CLIENT)));
        }
        command.addAll(List.of(arguments));
        StringClients.KcatRun run = StringClients.kcat(command, input, dir);
        assertThat(run.exitCode()).as("kcat %s exit code; stderr: %s", command, run.stderr()).isZero();
        return run.lines();
    }

    @Test
    void javaProducerAndConsumerRoundTripEveryRecordThroughTheTlsListener() throws Exception {
        String topic = "tls-java-" + UUID.randomUUID();
        createTopic(ssl(serverTls, false), topic, 3);

        List<String> sent = produce(ssl(serverTls, false), topic, "java-", 600);
        List<String> read = consume(ssl(serverTls, false), topic, sent.size());

        assertThat(read).hasSize(600).containsExactlyInAnyOrderElementsOf(sent);
        assertThat(serverTls.metrics().value(HANDSHAKE_FAILURES, "")).as("no failed handshakes").isEqualTo(-1);
    }

    @Test
    void kcatProducesAndConsumesThroughTheTlsListener() throws Exception {
        String topic = "tls-kcat-" + UUID.randomUUID();
        createTopic(ssl(serverTls, false), topic, 3);
        StringBuilder lines = new StringBuilder();
        List<String> sent = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            sent.add("kcat-" + i);
            lines.append("kcat-").append(i).append('\n');
        }

        kcat(serverTls, false, lines.toString(), "-P", "-t", topic, "-X", "acks=all");
        List<String> read = kcat(serverTls, false, "", "-C", "-t", topic, "-o", "beginning", "-c", "200", "-q");

        assertThat(read).containsExactlyInAnyOrderElementsOf(sent);
        assertThat(consume(ssl(serverTls, false), topic, 200)).as("and kafka-clients reads what kcat wrote")
                .containsExactlyInAnyOrderElementsOf(sent);
    }

    @Test
    void requiredMutualTlsRejectsClientsWithoutCertificateAndServesCertifiedOnes() throws Exception {
        String topic = "mtls-" + UUID.randomUUID();

        try (Admin anonymous = Admin.create(ssl(mutualTls, false))) {
            assertThatThrownBy(() -> anonymous.describeCluster().clusterId().get(30, TimeUnit.SECONDS))
                    .as("a client without a certificate").isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(SslAuthenticationException.class);
        }
        await().atMost(Duration.ofSeconds(10)).until(() ->
                mutualTls.metrics().value(HANDSHAKE_FAILURES, "reason=\"rejected\"") >= 1);

        createTopic(ssl(mutualTls, true), topic, 3);
        Set<String> sent = new HashSet<>(produce(ssl(mutualTls, true), topic, "java-", 300));
        kcat(mutualTls, true, "kcat-0\nkcat-1\nkcat-2\n", "-P", "-t", topic, "-X", "acks=all");
        sent.addAll(List.of("kcat-0", "kcat-1", "kcat-2"));

        assertThat(consume(ssl(mutualTls, true), topic, sent.size())).containsExactlyInAnyOrderElementsOf(sent);
    }

    @Test
    void plaintextClientFailsCleanlyWhileTheTlsListenerKeepsServing() throws Exception {
        String topic = "tls-plain-" + UUID.randomUUID();
        createTopic(ssl(serverTls, false), topic, 1);
        Map<String, Object> producerSettings = new HashMap<>(ssl(serverTls, false));
        producerSettings.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        producerSettings.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        try (KafkaProducer<String, String> tls = new KafkaProducer<>(producerSettings)) {
            tls.send(new ProducerRecord<>(topic, "before")).get(30, TimeUnit.SECONDS);

            Map<String, Object> plaintext = Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, serverTls.address(),
                    AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5_000, AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2_000);
            try (Admin plain = Admin.create(plaintext)) {
                assertThatThrownBy(() -> plain.describeCluster().clusterId().get(30, TimeUnit.SECONDS))
                        .as("a plaintext client on the TLS listener gets no answer").isInstanceOf(ExecutionException.class);
            }

            RecordMetadata after = tls.send(new ProducerRecord<>(topic, "after")).get(30, TimeUnit.SECONDS);
            assertThat(after.offset()).as("the open TLS connection kept working").isEqualTo(1);
        }
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            double counted = serverTls.metrics().value(HANDSHAKE_FAILURES, "reason=\"not_tls\"");
            long logged = Files.readAllLines(serverTls.process().stderrLog()).stream()
                    .filter(line -> line.contains("TLS handshake with client") && line.contains("(not_tls)")).count();
            assertThat(counted).as("plaintext connections counted").isGreaterThanOrEqualTo(1);
            // Warnings are rate-limited per reason and client address (one a second); the metric counts each.
            assertThat(logged).as("at least one warning, never more than one per failed connection")
                    .isBetween(1L, (long) counted);
        });
        assertThat(Files.readString(serverTls.process().stderrLog())).as("no second log line for the same failure")
                .doesNotContain("after an error");
    }

    @Test
    void proxyWithUnusableTlsFilesExitsNamingEveryKey() throws Exception {
        Path notACertificate = Files.writeString(dir.resolve("not-a-cert.pem"), "hello\n");
        Path missingKey = dir.resolve("missing.key");
        Path config = Files.writeString(dir.resolve("broken-tls.yaml"), """
                listener: { host: 127.0.0.1, port: 0, advertisedHost: 127.0.0.1, advertisedPort: 0,
                            tlsCertFile: %s, tlsKeyFile: %s }
                etcd:     { endpoints: ["%s"] }
                backends: { bootstrap: ["%s"] }
                admin:    { host: 127.0.0.1, port: 0 }
                """.formatted(notACertificate, missingKey, cluster.etcdEndpoint(), cluster.bootstrapServers()));

        try (ManagedProcess proxy = ManagedProcess.start("broken-tls-proxy", JavaCommand.ofCurrentClasspath().command(
                "io.leasehold.proxy.Main", List.of("--config", config.toString())), cluster.logDir(), Map.of())) {
            assertThat(proxy.waitFor(Duration.ofSeconds(60))).as("the proxy exits").isTrue();
            assertThat(proxy.exitCode()).contains(1);
            assertThat(Files.readString(proxy.stderrLog()))
                    .contains(config + ": listener.tlsCertFile: " + notACertificate + " holds no PEM certificate")
                    .contains(config + ": listener.tlsKeyFile: cannot read " + missingKey + ": no such file");
        }
    }
}
