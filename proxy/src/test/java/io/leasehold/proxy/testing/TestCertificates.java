package io.leasehold.proxy.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throw-away certificate authority for one test, made with the {@code openssl} command line
 * under a directory of the test: the CA ({@link #caCert()}), a {@link #SERVER} certificate for
 * 127.0.0.1 (for etcd and for the proxy's Kafka listener) and a {@link #CLIENT} certificate,
 * private keys in PKCS#8 PEM as OpenSSL 3 writes them. Every test needing certificates uses this.
 */
public final class TestCertificates {

    /** Certificate for {@code 127.0.0.1}, usable by a TLS server. */
    public static final String SERVER = "server";
    /** Client certificate ({@code CN=leasehold-proxy}) for mutual TLS. */
    public static final String CLIENT = "client";

    private final Path dir;

    private TestCertificates(Path dir) {
        this.dir = dir;
    }

    /** Generates a new CA and both certificates under {@code dir}. */
    public static TestCertificates generate(Path dir) throws IOException, InterruptedException {
        TestCertificates certs = new TestCertificates(Files.createDirectories(dir));
        certs.openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=leasehold-test-ca",
                "-keyout", "ca.key", "-out", "ca.crt");
        certs.issue(SERVER, "/CN=127.0.0.1", "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n");
        certs.issue(CLIENT, "/CN=leasehold-proxy", "extendedKeyUsage=clientAuth\n");
        return certs;
    }

    /** The CA certificate (PEM) that signed both certificates. */
    public Path caCert() {
        return dir.resolve("ca.crt");
    }

    /** The PEM certificate {@link #SERVER} or {@link #CLIENT}. */
    public Path cert(String name) {
        return dir.resolve(name + ".crt");
    }

    /** The PKCS#8 PEM private key of that certificate. */
    public Path key(String name) {
        return dir.resolve(name + ".key");
    }

    /**
     * Issues (or issues again, with a new serial number) certificate {@code name} signed by this
     * CA, e.g. {@code issue("other-host", "/CN=other", "subjectAltName=DNS:other.example\n")}.
     *
     * @param extensions OpenSSL extension lines for the certificate
     */
    public void issue(String name, String subject, String extensions) throws IOException, InterruptedException {
        issue(name, subject, extensions, "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048");
    }

    /** Like {@link #issue}, with an EC key on curve P-256 instead of RSA. */
    public void issueEc(String name, String subject, String extensions) throws IOException, InterruptedException {
        issue(name, subject, extensions, "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256");
    }

    /**
     * The key of {@code name} written again in the form openssl calls traditional, as cert-manager
     * writes it by default: PKCS#1 ({@code BEGIN RSA PRIVATE KEY}) for RSA, SEC1
     * ({@code BEGIN EC PRIVATE KEY}) for EC.
     */
    public Path traditionalKey(String name) throws IOException, InterruptedException {
        openssl("pkey", "-in", name + ".key", "-traditional", "-out", name + "-traditional.key");
        return dir.resolve(name + "-traditional.key");
    }

    /** The key of {@code name} encrypted with a passphrase, in PKCS#8 or in the traditional form. */
    public Path encryptedKey(String name, boolean traditional) throws IOException, InterruptedException {
        String file = name + (traditional ? "-traditional" : "") + "-encrypted.key";
        List<String> arguments = new ArrayList<>(List.of("pkey", "-in", name + ".key", "-aes256",
                "-passout", "pass:leasehold", "-out", file));
        if (traditional) {
            arguments.add("-traditional");
        }
        openssl(arguments.toArray(String[]::new));
        return dir.resolve(file);
    }

    private void issue(String name, String subject, String extensions, String... keyOptions)
            throws IOException, InterruptedException {
        Files.writeString(dir.resolve(name + ".ext"), extensions, StandardCharsets.UTF_8);
        List<String> generate = new ArrayList<>(List.of("genpkey"));
        generate.addAll(List.of(keyOptions));
        generate.addAll(List.of("-out", name + ".key"));
        openssl(generate.toArray(String[]::new));
        openssl("req", "-new", "-key", name + ".key", "-subj", subject, "-out", name + ".csr");
        openssl("x509", "-req", "-in", name + ".csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                "-days", "2", "-extfile", name + ".ext", "-out", name + ".crt");
    }

    private void openssl(String... arguments) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("openssl"));
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
        }
    }
}
