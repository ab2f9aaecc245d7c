package io.leasehold.proxy.testing;

import io.leasehold.routing.testing.EtcdServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real etcd that serves clients only over TLS and requires a client certificate signed by the
 * test CA ({@code --client-cert-auth}); {@link #etcdctl} runs etcdctl against it with the client
 * certificate. The plain-text fixture {@link EtcdServer} has no TLS flags, hence this one.
 */
public final class TlsEtcd implements AutoCloseable {

    private final String etcdctl;
    private final TestCertificates certs;
    private final int clientPort = EtcdServer.freePort();
    private final Process process;

    private TlsEtcd(String binary, Path dir, TestCertificates certs) throws IOException {
        this.etcdctl = Path.of(binary).resolveSibling("etcdctl").toString();
        this.certs = certs;
        int peerPort = EtcdServer.freePort();
        List<String> command = List.of(binary, "--name", "tls-test", "--data-dir", dir.resolve("data").toString(),
                "--listen-client-urls", endpoint(), "--advertise-client-urls", endpoint(),
                "--listen-peer-urls", "http://127.0.0.1:" + peerPort,
                "--initial-advertise-peer-urls", "http://127.0.0.1:" + peerPort,
                "--initial-cluster", "tls-test=http://127.0.0.1:" + peerPort,
                "--cert-file", certs.cert(TestCertificates.SERVER).toString(),
                "--key-file", certs.key(TestCertificates.SERVER).toString(),
                "--trusted-ca-file", certs.caCert().toString(), "--client-cert-auth", "--log-level", "warn");
        this.process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve("etcd.log").toFile()).start();
    }

    /** Starts etcd (the binary {@code scripts/ensure-etcd} provides, as for every etcd test) and waits until it answers. */
    public static TlsEtcd start(Path dir, TestCertificates certs) throws Exception {
        TlsEtcd etcd = new TlsEtcd(etcdBinary(), dir, certs);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                etcd.etcdctl("endpoint", "health");
                return etcd;
            } catch (IllegalStateException notYet) {
                if (System.nanoTime() > deadline || !etcd.process.isAlive()) {
                    etcd.close();
                    throw new IllegalStateException("TLS etcd did not become healthy; log in " + dir.resolve("etcd.log"), notYet);
                }
                Thread.sleep(200);
            }
        }
    }

    public String endpoint() {
        return "https://127.0.0.1:" + clientPort;
    }

    /** Runs etcdctl with the client certificate; fails with its output unless it exits 0. */
    public String etcdctl(String... arguments) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(etcdctl, "--endpoints", endpoint(), "--cacert",
                certs.caCert().toString(), "--cert", certs.cert(TestCertificates.CLIENT).toString(),
                "--key", certs.key(TestCertificates.CLIENT).toString(),
                "--dial-timeout", "2s"));
        command.addAll(List.of(arguments));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("ETCDCTL_API", "3");
        Process ctl = builder.start();
        String output = new String(ctl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!ctl.waitFor(30, TimeUnit.SECONDS) || ctl.exitValue() != 0) {
            throw new IllegalStateException("etcdctl " + String.join(" ", arguments) + " failed: " + output);
        }
        return output;
    }

    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String etcdBinary() throws IOException, InterruptedException {
        String configured = System.getProperty("leasehold.etcd.binary");
        if (configured != null && !configured.isBlank()) {
            return configured;
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path script = dir.resolve("scripts").resolve("ensure-etcd");
            if (Files.isExecutable(script)) {
                Process ensure = new ProcessBuilder(script.toString()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
                String[] lines = new String(ensure.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim().split("\n");
                if (ensure.waitFor() != 0) {
                    throw new IllegalStateException(script + " could not provide etcd");
                }
                return lines[lines.length - 1].trim();
            }
        }
        throw new IllegalStateException("scripts/ensure-etcd not found above " + Path.of("").toAbsolutePath());
    }
}
