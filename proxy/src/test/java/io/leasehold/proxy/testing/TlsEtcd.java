package io.leasehold.proxy.testing;

import io.leasehold.routing.testing.EtcdServer;
import io.leasehold.routing.testing.LoopbackPorts;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real etcd that serves clients only over TLS and requires a client certificate signed by the
 * test CA ({@code --client-cert-auth}); {@link #etcdctl} runs etcdctl against it with the client
 * certificate. The plain-text fixture {@link EtcdServer} has no TLS flags, hence this one.
 */
public final class TlsEtcd implements AutoCloseable {

    private final String binary;
    private final TestCertificates certs;
    private final int clientPort = LoopbackPorts.take();
    private final Process process;

    private TlsEtcd(String binary, Path dir, TestCertificates certs) throws IOException {
        this.binary = binary;
        this.certs = certs;
        int peerPort = LoopbackPorts.take();
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
        TlsEtcd etcd = new TlsEtcd(EtcdServer.findBinary(), dir, certs);
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
    public String etcdctl(String... arguments) {
        return EtcdServer.etcdctl(binary, List.of("--endpoints", endpoint(), "--cacert", certs.caCert().toString(),
                "--cert", certs.cert(TestCertificates.CLIENT).toString(),
                "--key", certs.key(TestCertificates.CLIENT).toString(), "--dial-timeout", "2s"), arguments);
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
}
