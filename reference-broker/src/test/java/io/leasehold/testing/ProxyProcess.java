package io.leasehold.testing;

import java.nio.file.Path;

/**
 * A proxy JVM ({@code io.leasehold.proxy.Main --config FILE}) of a {@link LocalCluster}. The
 * harness only knows the main class by name, so it compiles without the proxy module; the
 * classpath that contains the proxy is given to the cluster (in the proxy's own tests, simply
 * the test classpath).
 */
public final class ProxyProcess extends ClusterMember {

    /** The proxy's main class, launched by name. */
    public static final String MAIN_CLASS = "io.leasehold.proxy.Main";

    private final int index;
    private final int adminPort;
    private final Path configFile;

    ProxyProcess(int index, String host, int port, int adminPort, Path configFile, ManagedProcess process) {
        super(host, port, process);
        this.index = index;
        this.adminPort = adminPort;
        this.configFile = configFile;
    }

    /** Which proxy of the cluster this is, from 1. */
    public int index() {
        return index;
    }

    /** The admin HTTP base URL ({@code /healthz}, {@code /readyz}, {@code /metrics}, {@code /routes}). */
    public String adminUrl() {
        return "http://" + host() + ":" + adminPort;
    }

    /** The generated YAML config it runs with. */
    public Path configFile() {
        return configFile;
    }

    @Override
    public String toString() {
        return "proxy " + index + " at " + address() + " " + process();
    }
}
