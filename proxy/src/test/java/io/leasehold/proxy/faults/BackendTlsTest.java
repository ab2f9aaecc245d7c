package io.leasehold.proxy.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.leasehold.proxy.testing.StringClients;
import io.leasehold.proxy.testing.TestCertificates;
import io.leasehold.routing.keys.KeySchema;
import io.leasehold.testing.JavaCommand;
import io.leasehold.testing.KafkajsConsumer;
import io.leasehold.testing.LocalCluster;
import io.leasehold.testing.ProxyProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reference brokers that speak only mutual TLS, behind proxies whose broker links use
 * {@code backends.tls} (the test CA, the proxy's client certificate, hostname verification on),
 * with real kafka-clients, kcat and kafkajs clients on the plaintext listener; and a broker whose
 * certificate names another host, which the proxy refuses and reports as unreachable.
 */
class BackendTlsTest {

    @TempDir
    Path dir;

    /** The proxy's {@code backends.tls} keys, as the environment overrides the chart would set. */
    private static Map<String, String> backendTls(TestCertificates certs) {
        return Map.of("LEASEHOLD_BACKENDS_TLS_ENABLED", "true",
                "LEASEHOLD_BACKENDS_TLS_CA_FILE", certs.caCert().toString(),
                "LEASEHOLD_BACKENDS_TLS_CERT_FILE", certs.cert(TestCertificates.CLIENT).toString(),
                "LEASEHOLD_BACKENDS_TLS_KEY_FILE", certs.key(TestCertificates.CLIENT).toString());
    }

    /** Broker flags for a mutual-TLS listener with certificate {@code name}. */
    private static List<String> brokerTls(TestCertificates certs, String name) {
        return List.of("--tls-cert", certs.cert(name).toString(), "--tls-key", certs.key(name).toString(),
                "--tls-ca", certs.caCert().toString());
    }

    private static Map<String, Object> plaintext(ProxyProcess proxy) {
        return Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, proxy.address());
    }

    @Test
    void javaKcatAndKafkajsClientsWorkThroughTwoProxiesOverTlsBrokerLinksAcrossAKilledOwner() throws Exception {
        TestCertificates certs = TestCertificates.generate(dir.resolve("certs"));
        try (LocalCluster cluster = LocalCluster.builder("backend-tls").brokers(2).leaseTtl(Duration.ofSeconds(3))
                .extraBrokerArguments(brokerTls(certs, TestCertificates.SERVER))
                .proxyCommand(JavaCommand.ofCurrentClasspath()).start()) {
            ProxyProcess proxy1 = cluster.startProxy(backendTls(certs));
            ProxyProcess proxy2 = cluster.startProxy(backendTls(certs));
            String topic = "tls-backends";
            StringClients.createTopic(plaintext(proxy1), topic, 2);

            List<String> sent = new ArrayList<>(StringClients.produce(plaintext(proxy1), topic, "java-", 200));
            List<String> kcatValues = IntStream.range(0, 100).mapToObj(i -> "kcat-" + i).toList();
            StringClients.KcatRun kcat = StringClients.kcat(List.of("timeout", "90", "kcat", "-P", "-b",
                    proxy2.address(), "-t", topic, "-X", "acks=all"), String.join("\n", kcatValues) + "\n",
                    cluster.logDir());
            assertThat(kcat.exitCode()).as("kcat producer; stderr %s", kcat.stderr()).isZero();
            sent.addAll(kcatValues);

            int owner = cluster.partitionOwner(topic, 0).orElseThrow();
            cluster.broker(owner).kill();
            sent.addAll(StringClients.produce(plaintext(proxy2), topic, "after-kill-", 100));

            try (KafkajsConsumer kafkajs = KafkajsConsumer.start("js-reader", proxy2.address(), topic, "js-readers",
                    Duration.ofMillis(500), cluster.logDir())) {
                boolean all = kafkajs.awaitReceived(sent.size(), Duration.ofSeconds(90));
                List<String> read = kafkajs.received().stream().map(KafkajsConsumer.Received::value).toList();
                assertThat(all).as("kafkajs read %d of %d; errors %s; log %s", read.size(), sent.size(),
                        kafkajs.errors(), kafkajs.log()).isTrue();
                assertThat(read).containsAll(sent);
            }
            assertThat(StringClients.consume(plaintext(proxy1), topic, "java-readers", sent.size()))
                    .as("a kafka-clients group through the other proxy").containsExactlyInAnyOrderElementsOf(sent);
            assertThat(Files.readString(proxy1.process().stderrLog())).doesNotContain("TLS handshake with broker");
        }
    }

    @Test
    void aBrokerWhoseCertificateNamesAnotherHostIsRefusedAndClientsGetARetriableError() throws Exception {
        TestCertificates certs = TestCertificates.generate(dir.resolve("certs"));
        certs.issue("other-host", "/CN=broker.example", "subjectAltName=DNS:broker.example\n"
                + "extendedKeyUsage=serverAuth\n");
        try (LocalCluster cluster = LocalCluster.builder("backend-tls-host").brokers(2)
                .brokerArguments(1, brokerTls(certs, TestCertificates.SERVER))
                .brokerArguments(2, brokerTls(certs, "other-host"))
                .proxyCommand(JavaCommand.ofCurrentClasspath()).start()) {
            ProxyProcess proxy = cluster.startProxy(backendTls(certs));
            String topic = "misnamed";
            StringClients.createTopic(plaintext(proxy), topic, 1);
            try (Client etcd = Client.builder().endpoints(cluster.etcdEndpoint()).build()) {
                // Broker 2 owns the partition as far as the proxy can tell.
                etcd.getKVClient().put(bytes(new KeySchema(cluster.prefix()).partitionLeaseKey(topic, 0)), bytes("2"))
                        .get(10, TimeUnit.SECONDS);
            }

            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThatThrownBy(() -> sendOne(proxy, topic))
                    .as("the owner cannot be reached: a retriable error, not a hang")
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(NotLeaderOrFollowerException.class));
            int port = cluster.broker(2).port();
            assertThat(Files.readString(proxy.process().stderrLog())).as("the proxy says which broker and why")
                    .contains("TLS handshake with broker 127.0.0.1:" + port + " failed, so it counts as unreachable")
                    .contains("No subject alternative");

            Map<String, String> unchecked = new HashMap<>(backendTls(certs));
            unchecked.put("LEASEHOLD_BACKENDS_TLS_VERIFY_HOSTNAME", "false");
            ProxyProcess lenient = cluster.startProxy(unchecked);
            // Routed to broker 2, which now answers itself (it holds no real lease, so it refuses the write).
            catchThrowable(() -> sendOne(lenient, topic));
            assertThat(Files.readString(lenient.process().stderrLog()))
                    .as("with verifyHostname: false the handshake with broker 2 succeeds")
                    .doesNotContain("TLS handshake with broker");
        }
    }

    /** Sends one record to partition 0 through {@code proxy} without retries, waiting at most 20 s. */
    private static void sendOne(ProxyProcess proxy, String topic) throws Exception {
        Map<String, Object> settings = new HashMap<>(plaintext(proxy));
        settings.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        settings.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        settings.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        settings.put(ProducerConfig.RETRIES_CONFIG, 0);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(settings)) {
            producer.send(new ProducerRecord<>(topic, 0, "k", "v")).get(20, TimeUnit.SECONDS);
        }
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }
}
