package io.leasehold.proxy.faults;

import io.leasehold.routing.testing.LoopbackPorts;
import io.leasehold.testing.JavaCommand;
import io.leasehold.testing.LocalCluster;
import io.leasehold.testing.ManagedProcess;
import io.leasehold.testing.ProxyConfigYaml;
import io.leasehold.testing.ProxyProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A proxy process in front of a {@link LocalCluster}'s brokers, started with settings of its own
 * as {@code LEASEHOLD_*} environment overrides (the cluster's own proxies use the defaults).
 */
final class LaunchedProxy implements AutoCloseable {
    private final ManagedProcess process;
    private final int port;
    private final int adminPort;

    private LaunchedProxy(ManagedProcess process, int port, int adminPort) {
        this.process = process;
        this.port = port;
        this.adminPort = adminPort;
    }

    /** Starts a proxy JVM with {@code jvm} options and {@code overrides}, and waits for its READY line. */
    static LaunchedProxy start(LocalCluster cluster, Path dir, String name, JavaCommand jvm,
                               Map<String, String> overrides) {
        int[] ports = LoopbackPorts.take(2);
        int port = ports[0];
        int adminPort = ports[1];
        Path config = dir.resolve(name + ".yaml");
        try {
            Files.writeString(config, new ProxyConfigYaml("127.0.0.1", port, adminPort, List.of(cluster.etcdEndpoint()),
                    cluster.prefix(), List.of(cluster.bootstrapServers().split(","))).render(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ManagedProcess process = ManagedProcess.start(name,
                jvm.command(ProxyProcess.MAIN_CLASS, List.of("--config", config.toString())), cluster.logDir(), overrides);
        LaunchedProxy proxy = new LaunchedProxy(process, port, adminPort);
        try {
            process.awaitReady(Duration.ofSeconds(60));
        } catch (RuntimeException e) {
            proxy.close();
            throw e;
        }
        return proxy;
    }

    String address() {
        return "127.0.0.1:" + port;
    }

    String adminUrl() {
        return "http://127.0.0.1:" + adminPort;
    }

    ManagedProcess process() {
        return process;
    }

    @Override
    public void close() {
        process.close();
    }
}
