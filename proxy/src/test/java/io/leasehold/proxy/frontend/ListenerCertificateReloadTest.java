package io.leasehold.proxy.frontend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.leasehold.proxy.testing.ConfiguredProxy;
import io.leasehold.proxy.testing.PrometheusScrape;
import io.leasehold.proxy.testing.TestCertificates;
import io.leasehold.testing.LocalCluster;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A running proxy process picks up a rotated listener certificate from disk without a restart:
 * a new client's handshake shows the new certificate's serial number, a connection opened before
 * the rotation keeps working on the old one, and the expiry metric follows the new certificate.
 */
class ListenerCertificateReloadTest {

    private static final String EXPIRY = "leasehold_certificate_expiry_timestamp_seconds";

    @TempDir
    Path dir;

    @Test
    void newConnectionsGetTheRotatedCertificateWhileOpenOnesKeepWorking() throws Exception {
        TestCertificates certs = TestCertificates.generate(dir.resolve("certs"));
        try (LocalCluster cluster = LocalCluster.builder("listener-reload").brokers(1).start()) {
            try (ConfiguredProxy proxy = ConfiguredProxy.builder(cluster, dir, "reloading-proxy")
                    .listener("tlsCertFile: %s\ntlsKeyFile: %s".formatted(certs.cert(TestCertificates.SERVER),
                            certs.key(TestCertificates.SERVER))).start()) {
                int port = proxy.port();
                PrometheusScrape metrics = proxy.metrics();
                X509Certificate first = certificate(certs.cert(TestCertificates.SERVER));
                assertThat(metrics.value(EXPIRY, "role=\"listener\""))
                        .isEqualTo((double) first.getNotAfter().toInstant().getEpochSecond());

                try (SSLSocket old = connect(certs, port)) {
                    assertThat(serial(old)).isEqualTo(first.getSerialNumber());

                    certs.issue(TestCertificates.SERVER, "/CN=127.0.0.1",
                            "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n");
                    X509Certificate second = certificate(certs.cert(TestCertificates.SERVER));
                    assertThat(second.getSerialNumber()).isNotEqualTo(first.getSerialNumber());

                    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                        try (SSLSocket fresh = connect(certs, port)) {
                            assertThat(serial(fresh)).as("a new client's handshake").isEqualTo(second.getSerialNumber());
                            assertThat(KafkaWire.roundTrip(fresh, 7)).isEqualTo(7);
                        }
                    });
                    assertThat(KafkaWire.roundTrip(old, 8)).as("the connection from before the rotation").isEqualTo(8);
                    assertThat(serial(old)).isEqualTo(first.getSerialNumber());
                    assertThat(metrics.value(EXPIRY, "role=\"listener\""))
                            .isEqualTo((double) second.getNotAfter().toInstant().getEpochSecond());
                }
            }
        }
    }

    private static SSLSocket connect(TestCertificates certs, int port) throws Exception {
        KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        trust.setCertificateEntry("ca", certificate(certs.caCert()));
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, factory.getTrustManagers(), null);
        SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", port);
        socket.setSoTimeout(10_000);
        socket.startHandshake();
        return socket;
    }

    private static BigInteger serial(SSLSocket socket) throws Exception {
        return ((X509Certificate) socket.getSession().getPeerCertificates()[0]).getSerialNumber();
    }

    private static X509Certificate certificate(Path pem) throws Exception {
        try (InputStream in = Files.newInputStream(pem)) {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
    }
}
