package io.leasehold.proxy.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The complete set of keys the proxy understands; anything else in a config file is an error.
 * A section whose name has a dot ({@code listener.sasl}) is a mapping nested in its parent section.
 */
final class ConfigKeys {

    static final Map<String, List<String>> SECTIONS = sections();

    private ConfigKeys() {
    }

    /** The sections that stand at the top level of the file (not nested in another). */
    static List<String> topLevel() {
        return SECTIONS.keySet().stream().filter(name -> !name.contains(".")).toList();
    }

    private static Map<String, List<String>> sections() {
        Map<String, List<String>> sections = new LinkedHashMap<>();
        sections.put("listener", List.of("host", "port", "advertisedHost", "advertisedPort",
                "tlsCertFile", "tlsKeyFile", "tlsCaFile", "tlsClientAuth"));
        sections.put("listener.sasl", List.of("mechanisms", "usersFile", "connectionsMaxReauth"));
        sections.put("listener.sasl.oauthbearer", List.of("jwksFile", "jwksUrl", "jwksCaFile", "jwksRefreshInterval",
                "jwksFetchTimeout", "issuer", "audience", "principalClaim", "clockSkew"));
        sections.put("listener.tlsPrincipal", List.of("from", "mappingRules"));
        sections.put("etcd", List.of("endpoints", "prefix", "connectTimeout",
                "usernameFile", "passwordFile", "tlsCaFile", "tlsCertFile", "tlsKeyFile"));
        sections.put("backends", List.of("bootstrap", "connectTimeout", "requestTimeout", "controlRequestTimeout",
                "maxResponseBytes"));
        sections.put("backends.tls", List.of("enabled", "caFile", "certFile", "keyFile", "verifyHostname",
                "protocols"));
        sections.put("backends.sasl", List.of("mechanism", "username", "passwordFile"));
        sections.put("backends.dns", List.of("minTtl", "maxTtl", "negativeTtl"));
        sections.put("admin", List.of("host", "port", "routes"));
        sections.put("limits", List.of("maxFrameBytes", "maxConnections", "idleTimeout", "maxInFlightPerConnection",
                "tlsHandshakeTimeout", "maxConnectionsPerIp", "firstRequestTimeout", "frameCompletionTimeout",
                "memoryBudget", "acceptsPerSecond", "tlsHandshakesPerSecond", "maxPartitionsPerRequest",
                "maxTopicsPerMetadataRequest", "requestsPerSecondPerConnection", "requestDeadline"));
        sections.put("routing", List.of("metadataMaxAge", "retryInitialBackoff", "retryMaxBackoff",
                "staleRoutesUnreadyAfter", "initialLoadTimeout", "startWithoutEtcd"));
        sections.put("shutdown", List.of("drainTimeout"));
        sections.put("presentation", List.of("mode", "nodePortBase", "nodeHostPattern", "firstNodeId", "nodeCount",
                "produceOwnerDeadline"));
        sections.put("authorization", List.of("aclsFile"));
        sections.put("audit", List.of("file", "allowedReads"));
        sections.put("quotas", List.of("file", "proxyId", "windowCount", "windowSize"));
        sections.put("logging", List.of("level", "levels"));
        return Collections.unmodifiableMap(sections);
    }
}
