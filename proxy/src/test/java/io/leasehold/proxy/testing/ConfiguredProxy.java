package io.leasehold.proxy.testing;

import io.leasehold.routing.testing.LoopbackPorts;
import io.leasehold.testing.JavaCommand;
import io.leasehold.testing.LocalCluster;
import io.leasehold.testing.ManagedProcess;
import io.leasehold.testing.ProxyProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A proxy process in front of a {@link LocalCluster}'s etcd and brokers, started from a YAML
 * config file written for it: a loopback listener and admin port on free ports plus the listener
 * keys and top-level sections a test adds (TLS, SASL, ACLs). It runs with Netty's paranoid leak
 * detector, so {@link #stop()} can check that no buffer leaked.
 */
public final class ConfiguredProxy implements AutoCloseable {
    private final ManagedProcess process;
    private final int port;
    private final PrometheusScrape metrics;

    private ConfiguredProxy(ManagedProcess process, int port, int adminPort) {
        this.process = process;
        this.port = port;
        this.metrics = new PrometheusScrape("http://127.0.0.1:" + adminPort);
    }

    /** A proxy called {@code name} for {@code cluster}, its config and logs kept under {@code dir}. */
    public static Builder builder(LocalCluster cluster, Path dir, String name) {
        return new Builder(cluster, dir, name);
    }

    /** {@code 127.0.0.1:PORT} of the Kafka listener. */
    public String address() {
        return "127.0.0.1:" + port;
    }

    /** The Kafka listener's port. */
    public int port() {
        return port;
    }

    /** Its {@code /metrics}. */
    public PrometheusScrape metrics() {
        return metrics;
    }

    /** The process, for its logs or to kill or pause it. */
    public ManagedProcess process() {
        return process;
    }

    /**
     * Stops it with SIGTERM, as Kubernetes does, and returns its standard error; fails if it did
     * not drain and exit 0 or if the leak detector reported a leaked buffer.
     */
    public String stop() throws IOException {
        int exit = process.terminate(Duration.ofSeconds(30));
        String log = Files.readString(process.stderrLog());
        if (exit != 0) {
            throw new AssertionError(this + " exited with " + exit);
        }
        if (log.contains("LEAK:")) {
            throw new AssertionError(this + " leaked a buffer, see " + process.stderrLog());
        }
        return log;
    }

    @Override
    public void close() {
        process.close();
    }

    /**
     * A test class's teardown: stops every proxy that was started ({@link #stop()}, with its
     * drain and leak checks), then closes the cluster. A proxy whose stop failed is killed and the
     * cluster still closed; nothing happens when the cluster never started.
     */
    public static void stopAll(LocalCluster cluster, ConfiguredProxy... proxies) throws IOException {
        if (cluster == null) {
            return;
        }
        try {
            for (ConfiguredProxy proxy : proxies) {
                if (proxy != null) {
                    proxy.stop();
                }
            }
        } finally {
            for (ConfiguredProxy proxy : proxies) {
                if (proxy != null) {
                    proxy.close();
                }
            }
            cluster.close();
        }
    }

    @Override
    public String toString() {
        return "proxy " + process.name() + " at " + address();
    }

    /** {@code "a", "b"}: a YAML flow sequence's items, every broker of a cluster with more than one. */
    private static String quoted(String[] items) {
        return "\"" + String.join("\", \"", items) + "\"";
    }

    /** What goes into the config file beyond the listener address, etcd, brokers and admin port. */
    public static final class Builder {
        private final LocalCluster cluster;
        private final Path dir;
        private final String name;
        private final StringBuilder listenerKeys = new StringBuilder();
        private final StringBuilder sections = new StringBuilder();
        private String backends;

        private Builder(LocalCluster cluster, Path dir, String name) {
            this.cluster = cluster;
            this.dir = dir;
            this.name = name;
        }

        /** Adds YAML lines under {@code listener:}, written as if the key were at the top level. */
        public Builder listener(String yaml) {
            yaml.lines().forEach(line -> listenerKeys.append("  ").append(line).append('\n'));
            return this;
        }

        /**
         * Replaces the {@code backends} section (by default the cluster's brokers as bootstrap) with
         * {@code yaml}, a flow mapping such as {@code { bootstrap: ["127.0.0.1:9092"], sasl: {...} }}.
         */
        public Builder backends(String yaml) {
            this.backends = yaml;
            return this;
        }

        /** Adds top-level YAML sections (e.g. {@code authorization: {aclsFile: ...}}). */
        public Builder section(String yaml) {
            sections.append(yaml).append(yaml.endsWith("\n") ? "" : "\n");
            return this;
        }

        /** Writes the config, starts the proxy JVM and waits for its READY line. */
        public ConfiguredProxy start() {
            int[] ports = LoopbackPorts.take(2);
            int port = ports[0];
            int adminPort = ports[1];
            Path config = dir.resolve(name + ".yaml");
            try {
                Files.writeString(config, """
                        listener:
                          host: 127.0.0.1
                          port: %d
                          advertisedHost: 127.0.0.1
                        %setcd:     { endpoints: ["%s"], prefix: %s }
                        backends: %s
                        admin:    { host: 127.0.0.1, port: %d }
                        %s""".formatted(port, listenerKeys, cluster.etcdEndpoint(), cluster.prefix(),
                        backends != null ? backends
                                : "{ bootstrap: [" + quoted(cluster.bootstrapServers().split(",")) + "] }",
                        adminPort, sections));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            List<String> jvm = new ArrayList<>(JavaCommand.DEFAULT_JVM_OPTIONS);
            jvm.add("-Dio.netty.leakDetection.level=paranoid");
            ManagedProcess process = ManagedProcess.start(name, JavaCommand.ofCurrentClasspath(jvm)
                    .command(ProxyProcess.MAIN_CLASS, List.of("--config", config.toString())), cluster.logDir(),
                    Map.of());
            ConfiguredProxy proxy = new ConfiguredProxy(process, port, adminPort);
            try {
                process.awaitReady(Duration.ofSeconds(60));
            } catch (RuntimeException e) {
                proxy.close();
                throw e;
            }
            return proxy;
        }
    }
}
