package io.leasehold.testing;

import java.nio.file.Path;
import java.time.Duration;

/**
 * A proxy JVM ({@code io.leasehold.proxy.Main --config FILE}) of a {@link LocalCluster}. The
 * harness only knows the main class by name, so it compiles without the proxy module; the
 * classpath that contains the proxy is given to the cluster (in the proxy's own tests, simply
 * the test classpath).
 */
public final class ProxyProcess implements AutoCloseable {

    /** The proxy's main class, launched by name. */
    public static final String MAIN_CLASS = "io.leasehold.proxy.Main";

    private final int index;
    private final String host;
    private final int port;
    private final int adminPort;
    private final Path configFile;
    private final ManagedProcess process;

    ProxyProcess(int index, String host, int port, int adminPort, Path configFile, ManagedProcess process) {
        this.index = index;
        this.host = host;
        this.port = port;
        this.adminPort = adminPort;
        this.configFile = configFile;
        this.process = process;
    }

    /** Which proxy of the cluster this is, from 1. */
    public int index() {
        return index;
    }

    /** The client listener's {@code host:port}. */
    public String address() {
        return host + ":" + port;
    }

    /** The client listener port. */
    public int port() {
        return port;
    }

    /** The admin HTTP base URL ({@code /healthz}, {@code /readyz}, {@code /metrics}, {@code /routes}). */
    public String adminUrl() {
        return "http://" + host + ":" + adminPort;
    }

    /** The generated YAML config it runs with. */
    public Path configFile() {
        return configFile;
    }

    /** The process, for logs and exit codes. */
    public ManagedProcess process() {
        return process;
    }

    /** Whether the JVM is running. */
    public boolean isAlive() {
        return process.isAlive();
    }

    /** SIGKILL. */
    public void kill() {
        process.kill();
    }

    /** SIGSTOP. */
    public void pause() {
        process.pause();
    }

    /** SIGCONT. */
    public void resume() {
        process.resume();
    }

    /** SIGTERM (drain) and wait; returns the exit code. */
    public int terminate(Duration timeout) {
        return process.terminate(timeout);
    }

    @Override
    public void close() {
        process.close();
    }

    @Override
    public String toString() {
        return "proxy " + index + " at " + address() + " " + process;
    }
}
