package io.leasehold.bench.cluster;

import io.leasehold.routing.keys.KeySchema;
import io.leasehold.routing.testing.LoopbackPorts;
import io.leasehold.testing.JavaCommand;
import io.leasehold.testing.ProxyConfigYaml;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Starts one Leasehold proxy ({@code io.leasehold.proxy.Main}) in its own JVM with a fixed 1 GiB
 * heap (or, with {@link #startAsOperator}, the JVM flags and environment an operator would give it),
 * configured by a YAML file written for this run (the shared harness's
 * {@link ProxyConfigYaml}): loopback listener and admin ports, the run's etcd, the backends'
 * bootstrap addresses, and the {@link Presentation} it shows clients.
 */
public final class ProxyInstance {

    private static final String MAIN_CLASS = "io.leasehold.proxy.Main";
    private static final List<String> JVM_OPTIONS = List.of(
            "-Xms1g", "-Xmx1g", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");

    private ProxyInstance() {
    }

    /**
     * Starts a proxy and waits until it prints {@code READY}.
     *
     * @param javaHome        the Java runtime it runs on
     * @param extraJvmOptions e.g. a flight recording; added after the fixed heap options
     */
    public static LaunchedProxy start(Path javaHome, String classpath, String etcdEndpoint,
            List<String> backendBootstrap, Presentation presentation, Path logDir, String name,
            List<String> extraJvmOptions) {
        List<String> jvmOptions = new ArrayList<>(JVM_OPTIONS);
        jvmOptions.addAll(extraJvmOptions);
        return launch(new JavaCommand(javaHome, classpath, jvmOptions), etcdEndpoint, backendBootstrap, presentation,
                logDir, name, Map.of());
    }

    /**
     * Starts a proxy with exactly {@code jvmOptions} (heap flags included, none of the fixed 1 GiB
     * heap) and {@code environment} added to its environment, e.g. {@code LEASEHOLD_*} overrides
     * of the configuration's keys; waits until it prints {@code READY}.
     */
    public static LaunchedProxy startAsOperator(String classpath, String etcdEndpoint, List<String> backendBootstrap,
            Path logDir, String name, List<String> jvmOptions, Map<String, String> environment) {
        return launch(new JavaCommand(classpath, jvmOptions), etcdEndpoint, backendBootstrap,
                Presentation.singleNode(), logDir, name, environment);
    }

    private static LaunchedProxy launch(JavaCommand java, String etcdEndpoint, List<String> backendBootstrap,
            Presentation presentation, Path logDir, String name, Map<String, String> environment) {
        Path baseDir = LaunchedProxy.directory("leasehold-bench-proxy-");
        int port = freePortOutside(presentation);
        Path config = baseDir.resolve("proxy.yaml");
        LaunchedProxy.writeConfig(baseDir, config, new ProxyConfigYaml("127.0.0.1", port, freePortOutside(presentation),
                List.of(etcdEndpoint), KeySchema.DEFAULT_PREFIX, backendBootstrap).render() + presentation.yaml());
        return LaunchedProxy.start(name, java, MAIN_CLASS,
                List.of("--config", config.toString()), baseDir, port, logDir, environment);
    }

    /** A free port that is not one of the node ports, which were only free when they were picked. */
    private static int freePortOutside(Presentation presentation) {
        int port = LoopbackPorts.take();
        while (presentation.isNodePort(port)) {
            port = LoopbackPorts.take();
        }
        return port;
    }
}
