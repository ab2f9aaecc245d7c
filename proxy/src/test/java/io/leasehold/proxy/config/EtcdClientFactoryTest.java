package io.leasehold.proxy.config;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.leasehold.proxy.testing.TestCertificates;
import io.leasehold.proxy.testing.TlsEtcd;
import io.leasehold.routing.testing.EtcdServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

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
        TestCertificates certs = TestCertificates.generate(dir.resolve("certs"));
        try (TlsEtcd etcd = TlsEtcd.start(Files.createDirectories(dir.resolve("etcd")), certs)) {
            ProxyConfig.Etcd mutualTls = new ProxyConfig.Etcd(List.of(etcd.endpoint()), "/kafscale", Duration.ofSeconds(5),
                    null, null, certs.caCert(), certs.cert(TestCertificates.CLIENT), certs.key(TestCertificates.CLIENT));
            try (Client client = factory.create(mutualTls)) {
                client.getKVClient().put(bytes("/kafscale/tls"), bytes("ok")).get(10, TimeUnit.SECONDS);
                assertThat(client.getKVClient().get(bytes("/kafscale/tls")).get(10, TimeUnit.SECONDS).getCount())
                        .isEqualTo(1);
            }
            ProxyConfig.Etcd withoutClientCertificate = new ProxyConfig.Etcd(List.of(etcd.endpoint()), "/kafscale",
                    Duration.ofSeconds(5), null, null, certs.caCert(), null, null);
            try (Client client = factory.create(withoutClientCertificate)) {
                assertThatThrownBy(() -> client.getKVClient().get(bytes("/kafscale/tls")).get(3, TimeUnit.SECONDS))
                        .as("etcd demands a client certificate").isInstanceOf(Exception.class);
            }
        }
    }

    @Test
    void httpsEndpointWithoutCaFileNeverFallsBackToPlaintext() throws Exception {
        try (EtcdServer plaintext = EtcdServer.start()) {
            String httpsUrl = plaintext.endpoint().replace("http://", "https://");
            ProxyConfig.Etcd etcd = new ProxyConfig.Etcd(List.of(httpsUrl), "/kafscale", Duration.ofSeconds(2));
            try (Client client = factory.create(etcd)) {
                assertThatThrownBy(() -> client.getKVClient().get(bytes("/kafscale/probe")).get(5, TimeUnit.SECONDS))
                        .as("an https:// endpoint speaks TLS, so a plaintext etcd cannot answer it")
                        .isInstanceOfAny(ExecutionException.class, java.util.concurrent.TimeoutException.class);
            }
        }
    }

    @Test
    void httpsEndpointWithoutCaFileVerifiesAgainstTheDefaultTrustStore(@TempDir Path dir) throws Exception {
        TestCertificates certs = TestCertificates.generate(dir.resolve("certs"));
        try (TlsEtcd etcd = TlsEtcd.start(Files.createDirectories(dir.resolve("etcd")), certs)) {
            ProxyConfig.Etcd noCa = new ProxyConfig.Etcd(List.of(etcd.endpoint()), "/kafscale", Duration.ofSeconds(2),
                    null, null, null, certs.cert(TestCertificates.CLIENT), certs.key(TestCertificates.CLIENT));
            try (Client client = factory.create(noCa)) {
                assertThatThrownBy(() -> client.getKVClient().get(bytes("/kafscale/tls")).get(5, TimeUnit.SECONDS))
                        .as("the test CA is in no default trust store").isInstanceOfAny(ExecutionException.class,
                                java.util.concurrent.TimeoutException.class);
            }
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
    void everyUnusableFileIsReportedAtOnceWithItsKey(@TempDir Path dir) throws Exception {
        TestCertificates certs = TestCertificates.generate(dir.resolve("certs"));
        Path user = Files.writeString(dir.resolve("username"), "\n");
        Path ca = Files.writeString(dir.resolve("ca.crt"), "not a certificate");
        ProxyConfig.Etcd etcd = new ProxyConfig.Etcd(List.of("https://127.0.0.1:2379"), "/kafscale",
                Duration.ofSeconds(1), user, dir.resolve("no-such-password"), ca, certs.cert(TestCertificates.CLIENT),
                certs.key(TestCertificates.SERVER));

        ConfigException error = catchThrowableOfType(ConfigException.class, () -> factory.create(etcd));

        assertThat(error.problems()).containsExactly(
                "config.yaml: etcd.usernameFile: " + user + " is empty",
                "config.yaml: etcd.passwordFile: cannot read " + dir.resolve("no-such-password") + ": no such file",
                "config.yaml: etcd.tlsCaFile: " + ca + " holds no PEM certificate (-----BEGIN CERTIFICATE-----)",
                "config.yaml: etcd.tlsKeyFile: " + certs.key(TestCertificates.SERVER) + " is not the private key of "
                        + "the certificate in etcd.tlsCertFile (" + certs.cert(TestCertificates.CLIENT) + ")");
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
