package io.leasehold.bench.cluster;

import io.leasehold.routing.testing.EtcdServer;
import io.leasehold.routing.keys.KeySchema;
import io.leasehold.testing.JavaCommand;
import io.leasehold.testing.ManagedProcess;
import io.leasehold.testing.ProxyConfigYaml;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One Leasehold proxy ({@code io.leasehold.proxy.Main}) in its own JVM with a fixed 1 GiB heap,
 * configured by a YAML file written for this run (the shared harness's {@link ProxyConfigYaml}):
 * loopback listener and admin ports, the run's etcd, and the backends' bootstrap addresses.
 */
public final class ProxyInstance implements AutoCloseable {

    private static final String MAIN_CLASS = "io.leasehold.proxy.Main";
    private static final List<String> JVM_OPTIONS = List.of(
            "-Xms1g", "-Xmx1g", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(30);

    private final Path baseDir;
    private final int port;
    private final ManagedProcess process;

    private ProxyInstance(Path baseDir, int port, ManagedProcess process) {
        this.baseDir = baseDir;
        this.port = port;
        this.process = process;
    }

    /** Starts a proxy and waits until it prints {@code READY}. */
    /**
     * @param extraJvmOptions e.g. a flight recording; added after the fixed heap options
     */
    public static ProxyInstance start(String classpath, String etcdEndpoint, List<String> backendBootstrap,
            Path logDir, String name, List<String> extraJvmOptions) {
        Path baseDir;
        try {
            baseDir = Files.createTempDirectory("leasehold-bench-proxy-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a proxy directory", e);
        }
        int port = EtcdServer.freePort();
        Path config = baseDir.resolve("proxy.yaml");
        write(config, new ProxyConfigYaml("127.0.0.1", port, EtcdServer.freePort(), List.of(etcdEndpoint),
                KeySchema.DEFAULT_PREFIX, backendBootstrap).render());
        List<String> jvmOptions = new ArrayList<>(JVM_OPTIONS);
        jvmOptions.addAll(extraJvmOptions);
        ManagedProcess process = ManagedProcess.start(name,
                new JavaCommand(classpath, jvmOptions).command(MAIN_CLASS, List.of("--config", config.toString())),
                logDir, Map.of());
        ProxyInstance proxy = new ProxyInstance(baseDir, port, process);
        try {
            process.awaitReady(START_TIMEOUT);
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

    /**
     * Writes the flight recording named {@code recordingName} to {@code file} with {@code jcmd}
     * while the proxy runs (its SIGTERM path halts the JVM, which would skip a dump on exit).
     */
    public void dumpFlightRecording(String recordingName, Path file) {
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                Long.toString(process.pid()), "JFR.dump", "name=" + recordingName, "filename=" + file);
        try {
            Process jcmd = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!jcmd.waitFor(60, TimeUnit.SECONDS) || jcmd.exitValue() != 0 || !Files.exists(file)) {
                throw new IllegalStateException("jcmd JFR.dump failed: " + output.trim());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run jcmd", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while dumping the proxy's flight recording", e);
        }
    }

    /** SIGTERM first (the proxy drains and exits), SIGKILL if that fails. */
    @Override
    public void close() {
        if (process.isAlive()) {
            try {
                process.terminate(SHUTDOWN_TIMEOUT);
            } catch (IllegalStateException e) {
                // terminate() already killed it after the timeout; the report names the log to look at.
            }
        }
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
