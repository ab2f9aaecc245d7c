package io.leasehold.proxy.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.leasehold.proxy.testing.TestCertificates;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
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
        Path certificateAsKey = certs.cert(TestCertificates.SERVER);
        Path missingCa = dir.resolve("missing-ca.crt");

        ConfigException error = catchThrowableOfType(ConfigException.class, () -> factory.create(
                listener(keyAsCertificate, certificateAsKey, missingCa, ProxyConfig.ClientAuth.REQUIRED)));

        assertThat(error.problems()).containsExactly(
                "proxy.yaml: listener.tlsCertFile: " + keyAsCertificate + " holds no PEM certificate "
                        + "(-----BEGIN CERTIFICATE-----)",
                "proxy.yaml: listener.tlsKeyFile: " + certificateAsKey + " holds no PEM private key "
                        + "(-----BEGIN PRIVATE KEY-----, RSA PRIVATE KEY or EC PRIVATE KEY)",
                "proxy.yaml: listener.tlsCaFile: cannot read " + missingCa + ": no such file");
    }

    @Test
    void keyOfAnotherCertificateIsRefusedBeforeAnyClientConnects() throws Exception {
        Path encrypted = certs.encryptedKey(TestCertificates.SERVER, false);

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
