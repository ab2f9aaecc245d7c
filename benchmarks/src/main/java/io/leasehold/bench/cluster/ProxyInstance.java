package io.leasehold.bench.cluster;

import io.leasehold.bench.process.JavaCommand;
import io.leasehold.bench.process.ManagedProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

/**
 * One Leasehold proxy ({@code io.leasehold.proxy.Main}) in its own JVM, configured by a YAML file
 * written for this run: loopback listener and admin ports, the run's etcd, and the backends'
 * bootstrap addresses.
 */
public final class ProxyInstance implements AutoCloseable {

    private static final String MAIN_CLASS = "io.leasehold.proxy.Main";
    private static final List<String> JVM_OPTIONS = List.of(
            "-Xms1g", "-Xmx1g", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");

    private final Path baseDir;
    private final int port;
    private final ManagedProcess process;

    private ProxyInstance(Path baseDir, int port, ManagedProcess process) {
        this.baseDir = baseDir;
        this.port = port;
        this.process = process;
    }

    /** Starts a proxy and waits until it prints {@code READY}. */
    public static ProxyInstance start(JavaCommand java, PortAllocator ports, String etcdEndpoint,
            List<String> backendBootstrap, Path logFile) {
        Path baseDir;
        try {
            baseDir = Files.createTempDirectory("leasehold-bench-proxy-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a proxy directory", e);
        }
        int port = ports.next();
        Path config = baseDir.resolve("proxy.yaml");
        write(config, String.join("\n",
                "listener: { host: 127.0.0.1, port: " + port + ", advertisedHost: 127.0.0.1, advertisedPort: " + port + " }",
                "etcd: { endpoints: [\"" + etcdEndpoint + "\"], prefix: /kafscale }",
                "backends: { bootstrap: [" + backendBootstrap.stream().map(b -> "\"" + b + "\"")
                        .collect(Collectors.joining(", ")) + "] }",
                "admin: { host: 127.0.0.1, port: " + ports.next() + " }",
                ""));
        ManagedProcess process = ManagedProcess.start("proxy",
                java.command(JVM_OPTIONS, MAIN_CLASS, List.of("--config", config.toString())),
                logFile);
        ProxyInstance proxy = new ProxyInstance(baseDir, port, process);
        try {
            process.awaitReady(Duration.ofSeconds(60));
            return proxy;
        } catch (RuntimeException e) {
            proxy.close();
            throw e;
        }
    }

    public String bootstrap() {
        return "127.0.0.1:" + port;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** The end of the proxy's log, for reports when a run through it fails. */
    public String logTail() {
        return process.logTail();
    }

    @Override
    public void close() {
        process.close();
        FileTrees.deleteRecursively(baseDir);
    }

    private static void write(Path file, String content) {
        try {
            Files.writeString(file, content);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
