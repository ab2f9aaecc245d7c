package io.leasehold.proxy.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.etcd.jetcd.Client;
import io.leasehold.proxy.testing.TestCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Private keys in the forms Kubernetes tools write them, made by openssl: PKCS#1 RSA (cert-manager's
 * default) and SEC1 EC keys are accepted by every reader of a key (Kafka listener, broker
 * connections, etcd client); encrypted keys, in either form, are refused with a clear message.
 */
class KeyFormsTest {

    private static final String RSA = "rsa-server";
    private static final String EC = "ec-server";

    @TempDir
    static Path dir;
    private static TestCertificates certs;

    @BeforeAll
    static void makeCertificates() throws Exception {
        certs = TestCertificates.generate(dir.resolve("certs"));
        String extensions = "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n";
        certs.issue(RSA, "/CN=127.0.0.1", extensions);
        certs.issueEc(EC, "/CN=127.0.0.1", extensions);
    }

    @ParameterizedTest
    @ValueSource(strings = {RSA, EC})
    void traditionalKeysAreReadWhereverAKeyIsRead(String name) throws Exception {
        Path key = certs.traditionalKey(name);
        Path cert = certs.cert(name);

        assertThat(Files.readString(key)).startsWith(name.equals(RSA)
                ? "-----BEGIN RSA PRIVATE KEY-----" : "-----BEGIN EC PRIVATE KEY-----");
        TlsMaterial listener = new ServerSslContextFactory("proxy.yaml").load(listener(cert, key));
        TlsMaterial backend = new BackendSslContextFactory("proxy.yaml").load(backendTls(cert, key));
        try (Client etcd = new EtcdClientFactory("proxy.yaml").create(etcd(cert, key))) {
            assertThat(etcd).isNotNull();
        }
        assertThat(listener.expiries()).containsKey("listener");
        assertThat(backend.expiries()).containsKey("backend_client");
    }

    @Test
    void aTraditionalKeyOfAnotherCertificateIsStillRefused() throws Exception {
        Path otherKey = certs.traditionalKey(EC);

        ConfigException error = catchThrowableOfType(ConfigException.class, () ->
                new ServerSslContextFactory("proxy.yaml").load(listener(certs.cert(RSA), otherKey)));

        assertThat(error.problems()).containsExactly("proxy.yaml: listener.tlsKeyFile: " + otherKey
                + " is not the private key of the certificate in listener.tlsCertFile (" + certs.cert(RSA) + ")");
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void encryptedKeysAreRefusedWithAClearMessageEverywhere(boolean traditional) throws Exception {
        Path key = certs.encryptedKey(RSA, traditional);
        Path cert = certs.cert(RSA);

        ConfigException listener = catchThrowableOfType(ConfigException.class, () ->
                new ServerSslContextFactory("proxy.yaml").load(listener(cert, key)));
        ConfigException backend = catchThrowableOfType(ConfigException.class, () ->
                new BackendSslContextFactory("proxy.yaml").load(backendTls(cert, key)));
        ConfigException etcd = catchThrowableOfType(ConfigException.class, () ->
                new EtcdClientFactory("proxy.yaml").create(etcd(cert, key)));

        String why = key + " holds an encrypted key; the proxy reads unencrypted keys (protect the file instead, "
                + "e.g. a Secret mounted read-only)";
        assertThat(listener.problems()).containsExactly("proxy.yaml: listener.tlsKeyFile: " + why);
        assertThat(backend.problems()).containsExactly("proxy.yaml: backends.tls.keyFile: " + why);
        assertThat(etcd.problems()).containsExactly("proxy.yaml: etcd.tlsKeyFile: " + why);
    }

    private static ProxyConfig.Listener listener(Path cert, Path key) {
        return new ProxyConfig.Listener("0.0.0.0", 9092, "kafka", 9092, cert, key, null, ProxyConfig.ClientAuth.NONE);
    }

    private static ProxyConfig.BackendTls backendTls(Path cert, Path key) {
        return new ProxyConfig.BackendTls(certs.caCert(), cert, key, true, ProxyConfig.BackendTls.PROTOCOLS);
    }

    private static ProxyConfig.Etcd etcd(Path cert, Path key) {
        return new ProxyConfig.Etcd(List.of("https://127.0.0.1:2379"), "/kafscale", Duration.ofSeconds(5), null, null,
                certs.caCert(), cert, key);
    }
}
