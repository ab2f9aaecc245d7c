package io.leasehold.proxy.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.leasehold.proxy.testing.TestCertificates;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.net.ssl.SSLEngine;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The listener's TLS context from PEM files made with openssl: the client certificate policy
 * as configured, and unusable files refused at start-up, each named with its key.
 */
class ServerSslContextFactoryTest {

    @TempDir
    static Path dir;
    private static TestCertificates certs;

    private final ServerSslContextFactory factory = new ServerSslContextFactory("proxy.yaml");

    @BeforeAll
    static void makeCertificates() throws Exception {
        certs = TestCertificates.generate(dir.resolve("certs"));
    }

    private static ProxyConfig.Listener listener(Path cert, Path key, Path ca, ProxyConfig.ClientAuth clientAuth) {
        return new ProxyConfig.Listener("0.0.0.0", 9092, "kafka", 9092, cert, key, ca, clientAuth);
    }

    @Test
    void asksForClientCertificatesAsConfigured() throws Exception {
        Path cert = certs.cert(TestCertificates.SERVER);
        Path key = certs.key(TestCertificates.SERVER);

        SSLEngine none = engine(factory.create(listener(cert, key, null, ProxyConfig.ClientAuth.NONE)));
        SSLEngine requested = engine(factory.create(listener(cert, key, certs.caCert(), ProxyConfig.ClientAuth.REQUESTED)));
        SSLEngine required = engine(factory.create(listener(cert, key, certs.caCert(), ProxyConfig.ClientAuth.REQUIRED)));

        assertThat(none.getUseClientMode()).isFalse();
        assertThat(none.getWantClientAuth() || none.getNeedClientAuth()).isFalse();
        assertThat(requested.getWantClientAuth()).isTrue();
        assertThat(requested.getNeedClientAuth()).isFalse();
        assertThat(required.getNeedClientAuth()).isTrue();
    }

    @Test
    void everyUnusableFileIsNamedWithItsKeyAtOnce() throws Exception {
        Path keyAsCertificate = certs.key(TestCertificates.SERVER);
        Path legacyKey = Files.writeString(dir.resolve("pkcs1.key"),
                "-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAK\n-----END RSA PRIVATE KEY-----\n");
        Path missingCa = dir.resolve("missing-ca.crt");

        ConfigException error = catchThrowableOfType(ConfigException.class, () -> factory.create(
                listener(keyAsCertificate, legacyKey, missingCa, ProxyConfig.ClientAuth.REQUIRED)));

        assertThat(error.problems()).containsExactly(
                "proxy.yaml: listener.tlsCertFile: " + keyAsCertificate + " holds no PEM certificate "
                        + "(-----BEGIN CERTIFICATE-----)",
                "proxy.yaml: listener.tlsKeyFile: " + legacyKey + " holds a key in the older -----BEGIN RSA PRIVATE "
                        + "KEY----- form (PKCS#1/SEC1); the proxy reads PKCS#8 keys (-----BEGIN PRIVATE KEY-----): "
                        + "convert with openssl pkcs8 -topk8 -nocrypt -in OLD -out NEW",
                "proxy.yaml: listener.tlsCaFile: cannot read " + missingCa + ": no such file");
    }

    @Test
    void keyOfAnotherCertificateIsRefusedBeforeAnyClientConnects() throws Exception {
        Path encrypted = Files.writeString(dir.resolve("encrypted.key"),
                "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIFHDBOBgkqhkiG9w0BBQ0wQTApBgkqhkiG\n-----END ENCRYPTED PRIVATE KEY-----\n");

        ConfigException mismatch = catchThrowableOfType(ConfigException.class, () -> factory.create(listener(
                certs.cert(TestCertificates.SERVER), certs.key(TestCertificates.CLIENT), null, ProxyConfig.ClientAuth.NONE)));
        ConfigException encryptedKey = catchThrowableOfType(ConfigException.class, () -> factory.create(listener(
                certs.cert(TestCertificates.SERVER), encrypted, null, ProxyConfig.ClientAuth.NONE)));

        assertThat(mismatch.problems()).containsExactly("proxy.yaml: listener.tlsKeyFile: "
                + certs.key(TestCertificates.CLIENT) + " is not the private key of the certificate in "
                + "listener.tlsCertFile (" + certs.cert(TestCertificates.SERVER) + ")");
        assertThat(encryptedKey.problems()).singleElement().asString()
                .startsWith("proxy.yaml: listener.tlsKeyFile: " + encrypted + " holds an encrypted key");
    }

    private static SSLEngine engine(SslContext context) {
        return context.newEngine(ByteBufAllocator.DEFAULT);
    }
}
