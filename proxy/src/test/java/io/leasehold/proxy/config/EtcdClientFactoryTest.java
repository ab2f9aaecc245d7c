package io.leasehold.proxy.config;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.leasehold.routing.testing.EtcdServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class EtcdClientFactoryTest {

    private final EtcdClientFactory factory = new EtcdClientFactory("config.yaml");

    @Test
    void authenticatesWithCredentialsReadFromMountedFiles(@TempDir Path dir) throws Exception {
        Path user = Files.writeString(dir.resolve("username"), "root\n");
        Path password = Files.writeString(dir.resolve("password"), "s3cret\n");
        Path wrongPassword = Files.writeString(dir.resolve("wrong"), "guess");
        try (EtcdServer etcd = EtcdServer.start()) {
            enableAuth(etcd.endpoint(), "root", "s3cret");

            try (Client client = factory.create(etcdConfig(etcd, user, password))) {
                client.getKVClient().put(bytes("/kafscale/probe"), bytes("ok")).get(10, TimeUnit.SECONDS);
                assertThat(client.getKVClient().get(bytes("/kafscale/probe")).get(10, TimeUnit.SECONDS).getCount())
                        .isEqualTo(1);
            }
            try (Client client = factory.create(etcdConfig(etcd, user, wrongPassword))) {
                assertThatThrownBy(() -> client.getKVClient().get(bytes("/kafscale/probe")).get(10, TimeUnit.SECONDS))
                        .isInstanceOf(ExecutionException.class)
                        .hasMessageContaining("UNAUTHENTICATED");
            }
        }
    }

    @Test
    void connectsOverMutualTlsWithTheConfiguredFiles(@TempDir Path dir) throws Exception {
        assumeTrue(TestCertificates.opensslAvailable(), "openssl is needed to make test certificates");
        TestCertificates certs = TestCertificates.create(dir);
        int clientPort = freePort();
        int peerPort = freePort();
        String endpoint = "https://127.0.0.1:" + clientPort;
        Process etcd = new ProcessBuilder(etcdBinary(), "--name", "tls-test", "--data-dir", dir.resolve("data").toString(),
                "--listen-client-urls", endpoint, "--advertise-client-urls", endpoint,
                "--listen-peer-urls", "http://127.0.0.1:" + peerPort,
                "--initial-advertise-peer-urls", "http://127.0.0.1:" + peerPort,
                "--initial-cluster", "tls-test=http://127.0.0.1:" + peerPort,
                "--cert-file", certs.serverCert.toString(), "--key-file", certs.serverKey.toString(),
                "--client-cert-auth", "--trusted-ca-file", certs.caCert.toString(), "--log-level", "warn")
                .redirectErrorStream(true).redirectOutput(dir.resolve("etcd.log").toFile()).start();
        try {
            ProxyConfig.Etcd mutualTls = new ProxyConfig.Etcd(List.of(endpoint), "/kafscale", Duration.ofSeconds(5),
                    null, null, certs.caCert, certs.clientCert, certs.clientKey);
            try (Client client = factory.create(mutualTls)) {
                await().atMost(Duration.ofSeconds(30)).ignoreExceptions().untilAsserted(() ->
                        client.getKVClient().put(bytes("/kafscale/tls"), bytes("ok")).get(5, TimeUnit.SECONDS));
                assertThat(client.getKVClient().get(bytes("/kafscale/tls")).get(10, TimeUnit.SECONDS).getCount())
                        .isEqualTo(1);
            }
            ProxyConfig.Etcd withoutClientCertificate = new ProxyConfig.Etcd(List.of(endpoint), "/kafscale",
                    Duration.ofSeconds(5), null, null, certs.caCert, null, null);
            try (Client client = factory.create(withoutClientCertificate)) {
                assertThatThrownBy(() -> client.getKVClient().get(bytes("/kafscale/tls")).get(3, TimeUnit.SECONDS))
                        .as("etcd demands a client certificate").isInstanceOf(Exception.class);
            }
        } finally {
            etcd.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static String etcdBinary() throws Exception {
        Path repo = Path.of("").toAbsolutePath().getParent();
        Process ensure = new ProcessBuilder(repo.resolve("scripts/ensure-etcd").toString()).start();
        String binary = new String(ensure.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertThat(ensure.waitFor()).as("scripts/ensure-etcd").isZero();
        return binary;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    @Test
    void unreadableSecretFileIsNamedByItsKey(@TempDir Path dir) throws Exception {
        Path user = Files.writeString(dir.resolve("username"), "root");
        Path missing = dir.resolve("no-such-password");
        ProxyConfig.Etcd etcd = new ProxyConfig.Etcd(List.of("http://127.0.0.1:2379"), "/kafscale",
                Duration.ofSeconds(1), user, missing, null, null, null);

        assertThatThrownBy(() -> factory.create(etcd)).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("config.yaml: etcd.passwordFile: cannot read " + missing);
    }

    @Test
    void unusableTlsMaterialIsReportedAsConfigError(@TempDir Path dir) throws Exception {
        Path ca = Files.writeString(dir.resolve("ca.crt"), "not a certificate");
        ProxyConfig.Etcd etcd = new ProxyConfig.Etcd(List.of("https://127.0.0.1:2379"), "/kafscale",
                Duration.ofSeconds(1), null, null, ca, null, null);

        assertThatThrownBy(() -> factory.create(etcd)).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("config.yaml: etcd.tlsCaFile/tlsCertFile/tlsKeyFile: cannot build a TLS context");
    }

    private static ProxyConfig.Etcd etcdConfig(EtcdServer etcd, Path user, Path password) {
        return new ProxyConfig.Etcd(List.of(etcd.endpoint()), "/kafscale", Duration.ofSeconds(5),
                user, password, null, null, null);
    }

    private static void enableAuth(String endpoint, String user, String password) throws Exception {
        try (Client admin = Client.builder().endpoints(endpoint).build()) {
            admin.getAuthClient().userAdd(bytes(user), bytes(password)).get(10, TimeUnit.SECONDS);
            admin.getAuthClient().roleAdd(bytes("root")).get(10, TimeUnit.SECONDS);
            admin.getAuthClient().userGrantRole(bytes(user), bytes("root")).get(10, TimeUnit.SECONDS);
            admin.getAuthClient().authEnable().get(10, TimeUnit.SECONDS);
        }
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }
}
