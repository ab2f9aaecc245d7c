package io.leasehold.bench.cluster;

import io.leasehold.routing.testing.LoopbackPorts;
import io.leasehold.testing.JavaCommand;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Starts Kroxylicious 0.12 as a pure proxy: one virtual cluster in front of the backend brokers,
 * a port-identifies-node gateway on loopback (bootstrap on one port, broker id {@code N} on the
 * port {@code N - firstNodeId} after the node start port), and no filters. It runs in its own
 * JVM, with the same fixed heap as the Leasehold proxy, from the class path that
 * {@code benchmarks/kroxylicious} resolves (its own Netty, Jackson and kafka-clients versions).
 */
public final class KroxyliciousInstance {

    private static final String MAIN_CLASS = "io.leasehold.bench.kroxylicious.KroxyliciousLauncher";
    private static final List<String> JVM_OPTIONS = List.of("-Xms1g", "-Xmx1g",
            "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");

    private KroxyliciousInstance() {
    }

    /**
     * Writes the configuration, starts Kroxylicious and waits for the launcher's {@code READY}.
     *
     * @param classpath        the launcher's class path ({@code benchmarks/kroxylicious/target})
     * @param backendBootstrap the brokers' addresses
     * @param firstNodeId      the lowest broker id
     * @param nodeCount        how many consecutive broker ids get a port
     */
    public static LaunchedProxy start(String classpath, List<String> backendBootstrap, int firstNodeId,
            int nodeCount, Path logDir) {
        Path baseDir = LaunchedProxy.directory("leasehold-bench-kroxylicious-");
        int port = LoopbackPorts.consecutive(nodeCount + 1);
        Path config = baseDir.resolve("kroxylicious.yaml");
        LaunchedProxy.writeConfig(baseDir, config, yaml(backendBootstrap, port, firstNodeId, nodeCount));
        return LaunchedProxy.start("kroxylicious", new JavaCommand(classpath, JVM_OPTIONS), MAIN_CLASS,
                List.of(config.toString(), "127.0.0.1:" + port), baseDir, port, logDir, Map.of());
    }

    private static String yaml(List<String> backendBootstrap, int port, int firstNodeId, int nodeCount) {
        return """
                virtualClusters:
                  - name: bench
                    targetCluster:
                      bootstrapServers: "%s"
                    gateways:
                      - name: loopback
                        portIdentifiesNode:
                          bootstrapAddress: "127.0.0.1:%d"
                          nodeStartPort: %d
                          nodeIdRanges:
                            - name: brokers
                              start: %d
                              end: %d
                """.formatted(String.join(",", backendBootstrap), port, port + 1, firstNodeId,
                firstNodeId + nodeCount - 1);
    }
}
