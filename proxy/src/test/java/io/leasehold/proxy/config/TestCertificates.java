package io.leasehold.proxy.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throw-away CA with a server certificate for 127.0.0.1 and a client certificate, made with
 * the openssl command line tool; keys are PKCS#8 PEM, as OpenSSL 3 writes them by default.
 */
final class TestCertificates {

    final Path caCert;
    final Path serverCert;
    final Path serverKey;
    final Path clientCert;
    final Path clientKey;

    private TestCertificates(Path dir) {
        caCert = dir.resolve("ca.crt");
        serverCert = dir.resolve("server.crt");
        serverKey = dir.resolve("server.key");
        clientCert = dir.resolve("client.crt");
        clientKey = dir.resolve("client.key");
    }

    static boolean opensslAvailable() {
        try {
            return new ProcessBuilder("openssl", "version").start().waitFor() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    static TestCertificates create(Path dir) throws IOException, InterruptedException {
        TestCertificates certs = new TestCertificates(dir);
        Path caKey = dir.resolve("ca.key");
        openssl(dir, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", caKey.toString(),
                "-out", certs.caCert.toString(), "-days", "1", "-subj", "/CN=leasehold-test-ca");
        certs.issue(dir, "server", "127.0.0.1", "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n",
                certs.serverKey, certs.serverCert, caKey);
        certs.issue(dir, "client", "leasehold-proxy", "extendedKeyUsage=clientAuth\n", certs.clientKey,
                certs.clientCert, caKey);
        return certs;
    }

    private void issue(Path dir, String name, String commonName, String extensions, Path key, Path cert, Path caKey)
            throws IOException, InterruptedException {
        Path csr = dir.resolve(name + ".csr");
        Path ext = Files.writeString(dir.resolve(name + ".ext"), extensions, StandardCharsets.UTF_8);
        openssl(dir, "req", "-newkey", "rsa:2048", "-nodes", "-keyout", key.toString(), "-out", csr.toString(),
                "-subj", "/CN=" + commonName);
        openssl(dir, "x509", "-req", "-in", csr.toString(), "-CA", caCert.toString(), "-CAkey", caKey.toString(),
                "-CAcreateserial", "-out", cert.toString(), "-days", "1", "-extfile", ext.toString());
    }

    private static void openssl(Path dir, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("openssl"));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("openssl.log").toFile()).start();
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new IOException("openssl " + String.join(" ", args) + " failed: "
                    + Files.readString(dir.resolve("openssl.log")));
        }
    }
}
