package io.leasehold.proxy.tls;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.proxy.config.ProxyConfig;
import io.leasehold.proxy.config.ServerSslContextFactory;
import io.leasehold.proxy.testing.TestCertificates;
import io.leasehold.proxy.files.MountedFileWatcher;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.handler.ssl.SslContext;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reloading context follows its files: unchanged files keep the context, changed ones build a
 * new one (with the new certificate's expiry in the metric), and unusable ones keep the previous.
 */
class ReloadingTlsTest {

    @TempDir
    Path dir;

    @Test
    void rebuildsOnlyWhenTheFilesChangeAndKeepsTheLastUsableContext() throws Exception {
        TestCertificates certs = TestCertificates.generate(dir.resolve("certs"));
        Path cert = certs.cert(TestCertificates.SERVER);
        Path key = certs.key(TestCertificates.SERVER);
        ProxyConfig.Listener listener = new ProxyConfig.Listener("127.0.0.1", 0, "127.0.0.1", 0, cert, key, null,
                ProxyConfig.ClientAuth.NONE);
        ReloadingTls tls = ReloadingTls.load("test listener", List.of(cert, key),
                () -> new ServerSslContextFactory("test.yaml").load(listener));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new CertificateExpiryMetrics(registry).track(tls::expiries);
        SslContext first = tls.context();
        MountedFileWatcher watcher = new MountedFileWatcher(Duration.ofHours(1));
        tls.reloadWith(watcher);

        watcher.checkNow();
        assertThat(tls.context()).as("nothing changed").isSameAs(first);

        certs.issue(TestCertificates.SERVER, "/CN=127.0.0.1", "subjectAltName=IP:127.0.0.1\n");
        watcher.checkNow();
        SslContext second = tls.context();
        assertThat(second).as("a rotated certificate and key").isNotSameAs(first);
        assertThat(registry.get("leasehold.certificate.expiry.timestamp").tag("role", "listener").gauge().value())
                .isEqualTo((double) notAfter(cert));

        Files.writeString(key, "not a key");
        watcher.checkNow();
        assertThat(tls.context()).as("an unusable key: the last usable context stays").isSameAs(second);
        watcher.close();
    }

    private static long notAfter(Path pem) throws Exception {
        try (InputStream in = Files.newInputStream(pem)) {
            return ((X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in)).getNotAfter()
                    .toInstant().getEpochSecond();
        }
    }
}
