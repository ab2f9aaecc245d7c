package io.leasehold.testing;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Renders a proxy YAML config with every key of the contract spelled out, for one proxy on
 * loopback: advertised address = listen address, so clients reconnect to this proxy.
 *
 * @param etcdEndpoints     e.g. {@code http://127.0.0.1:2379}
 * @param backendBootstrap  {@code host:port} of brokers to use until etcd says more
 */
public record ProxyConfigYaml(String host, int port, int adminPort, List<String> etcdEndpoints, String prefix,
                              List<String> backendBootstrap) {

    /** Copies the lists. */
    public ProxyConfigYaml {
        etcdEndpoints = List.copyOf(etcdEndpoints);
        backendBootstrap = List.copyOf(backendBootstrap);
    }

    /** The YAML text. */
    public String render() {
        return """
                listener: { host: %1$s, port: %2$d, advertisedHost: %1$s, advertisedPort: %2$d }
                etcd:     { endpoints: [%3$s], prefix: %4$s, connectTimeout: 5s }
                backends: { bootstrap: [%5$s], connectTimeout: 5s, requestTimeout: 30s, controlRequestTimeout: 3s }
                admin:    { host: %1$s, port: %6$d }
                limits:   { maxFrameBytes: 104857600, maxConnections: 10000, idleTimeout: 10m, maxInFlightPerConnection: 64,
                            tlsHandshakeTimeout: 10s }
                routing:  { metadataMaxAge: 2s, retryInitialBackoff: 20ms, retryMaxBackoff: 500ms, staleRoutesUnreadyAfter: 30s }
                shutdown: { drainTimeout: 20s }
                """.formatted(host, port, quoted(etcdEndpoints), quoted(List.of(prefix)), quoted(backendBootstrap), adminPort);
    }

    private static String quoted(List<String> values) {
        return values.stream().map(value -> '"' + value + '"').collect(Collectors.joining(", "));
    }
}
