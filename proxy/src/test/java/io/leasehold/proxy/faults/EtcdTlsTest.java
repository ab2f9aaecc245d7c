package io.leasehold.proxy.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.leasehold.proxy.config.EtcdClientFactory;
import io.leasehold.proxy.config.ProxyConfig;
import io.leasehold.proxy.testing.TestCertificates;
import io.leasehold.proxy.testing.TlsEtcd;
import io.leasehold.routing.keys.KeySchema;
import io.leasehold.routing.testing.LoopbackPorts;
import io.leasehold.testing.JavaCommand;
import io.leasehold.testing.ManagedProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The proxy reaches an etcd that demands TLS with a client certificate and username/password
 * authentication, configured only through the YAML keys {@code etcd.tlsCaFile},
 * {@code tlsCertFile}, {@code tlsKeyFile}, {@code usernameFile} and {@code passwordFile}, with
 * certificates generated for this test. Without the client certificate or with a wrong
 * password, etcd refuses the same client.
 */
class EtcdTlsTest {

    private static final KeySchema KEYS = new KeySchema(KeySchema.DEFAULT_PREFIX);

    @TempDir
    Path dir;

    @Test
    void proxyLoadsItsRoutesFromAnEtcdRequiringClientCertificatesAndPasswords() throws Exception {
        TestCertificates certs = TestCertificates.generate(dir.resolve("certs"));
        Path user = Files.writeString(dir.resolve("username"), "root\n");
        Path password = Files.writeString(dir.resolve("password"), "s3cret\n");
        Path wrongPassword = Files.writeString(dir.resolve("wrong-password"), "guess\n");
        try (TlsEtcd etcd = TlsEtcd.start(Files.createDirectories(dir.resolve("etcd")), certs)) {
            etcd.etcdctl("put", KEYS.brokerKey(7), "{\"host\":\"127.0.0.1\",\"port\":1,\"rack\":null}");
            etcd.etcdctl("put", KEYS.partitionLeaseKey("secured", 0), "7");
            etcd.etcdctl("user", "add", "root", "--new-user-password", "s3cret");
            etcd.etcdctl("role", "add", "root");
            etcd.etcdctl("user", "grant-role", "root", "root");
            etcd.etcdctl("auth", "enable");

            EtcdClientFactory factory = new EtcdClientFactory("test.yaml");
            try (Client withoutClientCert = factory.create(etcdConfig(etcd, certs, false, user, password))) {
                assertThatThrownBy(() -> read(withoutClientCert)).as("no client certificate")
                        .isInstanceOfAny(ExecutionException.class, TimeoutException.class);
            }
            try (Client wrong = factory.create(etcdConfig(etcd, certs, true, user, wrongPassword))) {
                assertThatThrownBy(() -> read(wrong)).as("wrong password").hasMessageContaining("UNAUTHENTICATED");
            }

            int adminPort = LoopbackPorts.take();
            Path config = Files.writeString(dir.resolve("proxy.yaml"), """
                    listener: { host: 127.0.0.1, port: 0, advertisedHost: 127.0.0.1, advertisedPort: 0 }
                    etcd:
                      endpoints: ["%s"]
                      prefix: /kafscale
                      tlsCaFile: %s
                      tlsCertFile: %s
                      tlsKeyFile: %s
                      usernameFile: %s
                      passwordFile: %s
                    backends: { bootstrap: ["127.0.0.1:1"] }
                    admin: { host: 127.0.0.1, port: %d }
                    """.formatted(etcd.endpoint(), certs.caCert(), certs.cert(TestCertificates.CLIENT),
                    certs.key(TestCertificates.CLIENT), user, password, adminPort));
            try (ManagedProcess proxy = ManagedProcess.start("tls-proxy", JavaCommand.ofCurrentClasspath().command(
                    "io.leasehold.proxy.Main", List.of("--config", config.toString())), dir.resolve("logs"), Map.of())) {
                proxy.awaitReady(Duration.ofSeconds(60));
                String routes = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + adminPort + "/routes")).build(), HttpResponse.BodyHandlers.ofString()).body();
                JsonNode partition = new ObjectMapper().readTree(routes).path("partitions").path(0);
                assertThat(partition.path("topic").asText()).as("routes the proxy read over TLS: %s", routes).isEqualTo("secured");
                assertThat(partition.path("brokerId").asInt()).as("owner in %s", routes).isEqualTo(7);
            }
        }
    }

    private static ProxyConfig.Etcd etcdConfig(TlsEtcd etcd, TestCertificates certs, boolean clientCert, Path user,
                                               Path password) {
        return new ProxyConfig.Etcd(List.of(etcd.endpoint()), KeySchema.DEFAULT_PREFIX, Duration.ofSeconds(5), user, password,
                certs.caCert(), clientCert ? certs.cert(TestCertificates.CLIENT) : null,
                clientCert ? certs.key(TestCertificates.CLIENT) : null);
    }

    private static void read(Client client) throws Exception {
        client.getKVClient().get(ByteSequence.from(KEYS.brokerKey(7), StandardCharsets.UTF_8)).get(10, TimeUnit.SECONDS);
    }
}
