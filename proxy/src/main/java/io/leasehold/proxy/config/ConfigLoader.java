package io.leasehold.proxy.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.common.security.ssl.SslPrincipalMapper;

/**
 * Turns the proxy's YAML config file plus {@code LEASEHOLD_*} environment overrides into a
 * validated {@link ProxyConfig}. Unknown keys, wrong types, missing required keys and bad values
 * are all collected and reported together, each naming the source and the key path.
 *
 * <p>The optional {@code etcd.*File} and {@code listener.tls*File} keys point at mounted secret
 * files; the loader checks their form and combinations without touching the files (so a config
 * can be validated where the secrets are not mounted), and {@link EtcdClientFactory} and
 * {@link ServerSslContextFactory} read them at start-up.
 *
 * <p>Required keys (no safe default exists): {@code listener.advertisedHost},
 * {@code etcd.endpoints}, {@code backends.bootstrap}. Everything else has a default; see
 * {@code docs/configuration.md}.
 */
public final class ConfigLoader {

    private static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
    /** The smallest {@code routing.retryMaxBackoff}. */
    private static final Duration MIN_RETRY_MAX_BACKOFF = Duration.ofMillis(10);
    /** 8 MiB: eight times the clients' default {@code max.request.size}, small beside a 1 GiB pod. */
    private static final int DEFAULT_MAX_FRAME_BYTES = 8 << 20;
    /** 64 MiB: above the consumers' default {@code fetch.max.bytes} (50 MiB) plus headers. */
    private static final int DEFAULT_MAX_RESPONSE_BYTES = 64 << 20;

    /** Node ids a presentation range may start at: broker ids are small integers (StatefulSet ordinals). */
    private static final int MAX_NODE_ID = 1_000_000;
    /** A port per node: more than this many would be a mistake, not a cluster. */
    private static final int MAX_NODE_COUNT = 1024;
    /** Covers a StatefulSet of up to 16 brokers (ids 0..15). */
    private static final int DEFAULT_NODE_COUNT = 16;
    /** Far above a restart storm of a few thousand clients (which back off and retry when refused). */
    private static final int DEFAULT_ACCEPTS_PER_SECOND = 2000;
    /**
     * A Kafka client starts at most its in-flight cap (5 for a producer) per round trip on a
     * connection, so only one that pipelines far beyond any client's needs comes near this.
     */
    private static final int DEFAULT_REQUESTS_PER_SECOND_PER_CONNECTION = 10_000;
    /** A server-side TLS handshake costs about a millisecond of CPU: a quarter of two cores at most. */
    private static final int DEFAULT_TLS_HANDSHAKES_PER_SECOND = 500;
    /**
     * The proxy is one broker to its clients, so a consumer's whole assignment arrives in one
     * Fetch: generous, yet it keeps a request from fanning out without end.
     */
    private static final int DEFAULT_MAX_PARTITIONS_PER_REQUEST = 100_000;
    private static final int DEFAULT_MAX_TOPICS_PER_METADATA = 20_000;
    private static final String OAUTHBEARER = "OAUTHBEARER";

    private final Map<String, String> environment;
    private final YAMLMapper yaml;

    /**
     * @param environment variables that may override file values, usually {@code System.getenv()}
     */
    public ConfigLoader(Map<String, String> environment) {
        this.environment = Map.copyOf(environment);
        this.yaml = YAMLMapper.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();
    }

    /** Reads, overrides and validates the config file at {@code file}. */
    public ProxyConfig load(Path file) throws ConfigException {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ConfigException(List.of(file + ": cannot read the config file: " + e));
        }
        return parse(text, file.toString());
    }

    /**
     * Parses and validates YAML text; {@code sourceName} names it in error messages.
     */
    public ProxyConfig parse(String yamlText, String sourceName) throws ConfigException {
        ObjectNode root = readTree(yamlText, sourceName);
        List<String> problems = new ArrayList<>();
        checkKnownKeys(root, sourceName, problems);
        ProxyConfig config = build(new ConfigReader(root, environment, sourceName, problems));
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
        return config;
    }

    private ObjectNode readTree(String yamlText, String sourceName) throws ConfigException {
        JsonNode tree;
        try {
            tree = yaml.readTree(yamlText);
        } catch (JsonProcessingException e) {
            String where = e.getLocation() == null ? ""
                    : " at line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr();
            throw new ConfigException(List.of(sourceName + ": not valid YAML" + where + ": " + e.getOriginalMessage()));
        }
        if (tree == null || tree.isMissingNode() || tree.isNull()) {
            return JsonNodeFactory.instance.objectNode();
        }
        if (!tree.isObject()) {
            throw new ConfigException(List.of(sourceName + ": expected a mapping of sections ("
                    + String.join(", ", ConfigKeys.topLevel()) + ") at the top level, got "
                    + ConfigReader.describe(tree)));
        }
        return (ObjectNode) tree;
    }

    private static void checkKnownKeys(ObjectNode root, String sourceName, List<String> problems) {
        List<String> topLevel = ConfigKeys.topLevel();
        for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> section = it.next();
            if (!topLevel.contains(section.getKey())) {
                problems.add(sourceName + ": " + section.getKey() + ": unknown section (known sections: "
                        + String.join(", ", topLevel) + ")");
                continue;
            }
            checkSection(section.getKey(), section.getValue(), sourceName, problems);
        }
    }

    /** Checks one section's keys; a key naming a nested section ({@code listener.sasl}) is checked in turn. */
    private static void checkSection(String path, JsonNode body, String sourceName, List<String> problems) {
        List<String> known = new ArrayList<>(ConfigKeys.SECTIONS.get(path));
        ConfigKeys.SECTIONS.keySet().stream()
                .filter(name -> name.startsWith(path + ".") && name.indexOf('.', path.length() + 1) < 0)
                .forEach(name -> known.add(name.substring(path.length() + 1)));
        if (body.isNull()) {
            return;
        }
        if (!body.isObject()) {
            problems.add(sourceName + ": " + path + ": expected a mapping of keys (" + String.join(", ", known)
                    + "), got " + ConfigReader.describe(body));
            return;
        }
        for (Iterator<Map.Entry<String, JsonNode>> fields = body.fields(); fields.hasNext(); ) {
            Map.Entry<String, JsonNode> field = fields.next();
            String name = field.getKey();
            if (!known.contains(name)) {
                problems.add(sourceName + ": " + path + "." + name + ": unknown key (known keys in " + path + ": "
                        + String.join(", ", known) + ")");
            } else if (ConfigKeys.SECTIONS.containsKey(path + "." + name)) {
                checkSection(path + "." + name, field.getValue(), sourceName, problems);
            }
        }
    }

    private static ProxyConfig build(ConfigReader in) {
        ProxyConfig.Listener listener = listener(in);
        ProxyConfig.Admin admin = new ProxyConfig.Admin(
                in.host(key("admin", "host"), "0.0.0.0"),
                in.port(key("admin", "port"), 9094, 0),
                Objects.requireNonNullElse(in.optionalChoice(key("admin", "routes"),
                        ProxyConfig.RoutesAccess.values()), ProxyConfig.RoutesAccess.OPEN));
        if (admin.port() != 0 && admin.port() == listener.port()) {
            in.problem(key("admin", "port"), "must differ from listener.port (both are " + admin.port() + ")");
        }
        ProxyConfig.Etcd etcd = etcd(in);
        ProxyConfig.Backends backends = new ProxyConfig.Backends(
                in.hostPorts(key("backends", "bootstrap"), null),
                in.duration(key("backends", "connectTimeout"), DEFAULT_CONNECT_TIMEOUT),
                in.duration(key("backends", "requestTimeout"), Duration.ofSeconds(30)),
                in.duration(key("backends", "controlRequestTimeout"), Duration.ofSeconds(3)),
                in.positiveInt(key("backends", "maxResponseBytes"), DEFAULT_MAX_RESPONSE_BYTES),
                backendTls(in), backendDns(in), backendSasl(in));
        ProxyConfig.Limits limits = new ProxyConfig.Limits(
                in.positiveInt(key("limits", "maxFrameBytes"), DEFAULT_MAX_FRAME_BYTES),
                in.positiveInt(key("limits", "maxConnections"), 10_000),
                in.duration(key("limits", "idleTimeout"), Duration.ofMinutes(10)),
                in.positiveInt(key("limits", "maxInFlightPerConnection"), 64),
                in.duration(key("limits", "tlsHandshakeTimeout"), Duration.ofSeconds(10)),
                in.positiveInt(key("limits", "maxConnectionsPerIp"), 100),
                in.duration(key("limits", "firstRequestTimeout"), Duration.ofSeconds(30)),
                in.duration(key("limits", "frameCompletionTimeout"), Duration.ofSeconds(30)),
                in.optionalByteSize(key("limits", "memoryBudget")),
                in.positiveInt(key("limits", "acceptsPerSecond"), DEFAULT_ACCEPTS_PER_SECOND),
                in.positiveInt(key("limits", "tlsHandshakesPerSecond"), DEFAULT_TLS_HANDSHAKES_PER_SECOND),
                in.positiveInt(key("limits", "maxPartitionsPerRequest"), DEFAULT_MAX_PARTITIONS_PER_REQUEST),
                in.positiveInt(key("limits", "maxTopicsPerMetadataRequest"), DEFAULT_MAX_TOPICS_PER_METADATA),
                in.positiveInt(key("limits", "requestsPerSecondPerConnection"),
                        DEFAULT_REQUESTS_PER_SECOND_PER_CONNECTION),
                in.duration(key("limits", "requestDeadline"), Duration.ofMinutes(15)));
        ProxyConfig.Routing routing = routing(in);
        ProxyConfig.Shutdown shutdown = new ProxyConfig.Shutdown(
                in.duration(key("shutdown", "drainTimeout"), Duration.ofSeconds(20)));
        Path aclsFile = in.optionalFile(key("authorization", "aclsFile"));
        return new ProxyConfig(listener, etcd, backends, admin, limits, routing, shutdown, sasl(in),
                presentation(in, listener, admin), aclsFile == null ? null : new ProxyConfig.Authorization(aclsFile),
                logging(in), audit(in), quotas(in));
    }

    /** {@code quotas.proxyId}, when set, has no slash: it ends an etcd key. */
    private static ProxyConfig.Quotas quotas(ConfigReader in) {
        Path file = in.optionalFile(key("quotas", "file"));
        String proxyId = in.optionalText(key("quotas", "proxyId"));
        if (proxyId != null && proxyId.contains("/")) {
            in.problem(key("quotas", "proxyId"), "expected a name without '/', got \"" + proxyId + "\"");
            proxyId = null;
        }
        return new ProxyConfig.Quotas(file, proxyId,
                Objects.requireNonNullElse(in.optionalInt(key("quotas", "windowCount"), 2, 1000),
                        ProxyConfig.Quotas.DEFAULT_WINDOW_COUNT),
                in.duration(key("quotas", "windowSize"), ProxyConfig.Quotas.DEFAULT_WINDOW_SIZE));
    }

    /** {@code audit.file} is {@code -} (standard output) or an absolute path. */
    private static ProxyConfig.Audit audit(ConfigReader in) {
        boolean allowedReads = in.bool(key("audit", "allowedReads"), false);
        if (ProxyConfig.Audit.STANDARD_OUTPUT.equals(in.optionalText(key("audit", "file")))) {
            return new ProxyConfig.Audit(ProxyConfig.Audit.STANDARD_OUTPUT, allowedReads);
        }
        Path file = in.optionalFile(key("audit", "file"));
        return new ProxyConfig.Audit(file == null ? null : file.toString(), allowedReads);
    }

    private static ProxyConfig.Logging logging(ConfigReader in) {
        ProxyConfig.LogLevel level = in.optionalChoice(key("logging", "level"), ProxyConfig.LogLevel.values());
        Map<String, ProxyConfig.LogLevel> levels = in.optionalChoicesByName(key("logging", "levels"),
                ProxyConfig.LogLevel.values());
        return new ProxyConfig.Logging(Objects.requireNonNullElse(level, ProxyConfig.LogLevel.INFO),
                Objects.requireNonNullElse(levels, Map.of()));
    }

    /**
     * The presentation; node-per-owner needs distinct node addresses (a port range and/or a host
     * pattern), and a port range must fit below 65536 and leave out the listener and admin ports.
     */
    private static ProxyConfig.Presentation presentation(ConfigReader in, ProxyConfig.Listener listener,
                                                         ProxyConfig.Admin admin) {
        ConfigKey modeKey = key("presentation", "mode");
        ConfigKey baseKey = key("presentation", "nodePortBase");
        ConfigKey patternKey = key("presentation", "nodeHostPattern");
        ConfigKey firstKey = key("presentation", "firstNodeId");
        ConfigKey countKey = key("presentation", "nodeCount");
        ProxyConfig.PresentationMode mode = Objects.requireNonNullElse(
                in.optionalChoice(modeKey, ProxyConfig.PresentationMode.values()), ProxyConfig.PresentationMode.SINGLE_NODE);
        Integer base = in.optionalPort(baseKey);
        String pattern = in.optionalHostPattern(patternKey, ProxyConfig.Presentation.NODE_ID_PLACEHOLDER);
        Integer first = in.optionalInt(firstKey, 0, MAX_NODE_ID);
        Integer count = in.optionalInt(countKey, 1, MAX_NODE_COUNT);
        ConfigKey deadlineKey = key("presentation", "produceOwnerDeadline");
        Duration deadline = in.optionalDuration(deadlineKey);
        if (mode == ProxyConfig.PresentationMode.SINGLE_NODE) {
            String onlyNodePerOwner = "is only used with presentation.mode: node-per-owner";
            if (base != null) {
                in.problem(baseKey, onlyNodePerOwner);
            }
            if (pattern != null) {
                in.problem(patternKey, onlyNodePerOwner);
            }
            if (first != null) {
                in.problem(firstKey, onlyNodePerOwner);
            }
            if (count != null) {
                in.problem(countKey, onlyNodePerOwner);
            }
            return ProxyConfig.Presentation.singleNode(deadline);
        }
        if (deadline != null) {
            in.problem(deadlineKey, "is only used with presentation.mode: single-node (a node's connection carries "
                    + "one owner's partitions, so no owner waits for another)");
        }
        if (base == null && pattern == null) {
            in.problem(modeKey, "node-per-owner needs a distinct address per node: set presentation.nodePortBase "
                    + "(a port per node) and/or presentation.nodeHostPattern (a host name per node)");
        }
        int firstId = first == null ? 0 : first;
        int nodes = count == null ? DEFAULT_NODE_COUNT : count;
        if (base != null) {
            int last = base + nodes - 1;
            if (last > 65535) {
                in.problem(baseKey, "the node ports " + base + ".." + last + " (presentation.nodeCount " + nodes
                        + ") go past 65535");
            }
            refuseInside(in, baseKey, base, last, "listener.port", listener.port());
            refuseInside(in, baseKey, base, last, "admin.port", admin.port());
        }
        return new ProxyConfig.Presentation(mode, base == null ? 0 : base, pattern, firstId, nodes);
    }

    private static void refuseInside(ConfigReader in, ConfigKey baseKey, int base, int last, String portKey, int port) {
        if (port >= base && port <= last) {
            in.problem(baseKey, "the node ports " + base + ".." + last + " include " + portKey + " (" + port + ")");
        }
    }

    private static ProxyConfig.Listener listener(ConfigReader in) {
        String host = in.host(key("listener", "host"), "0.0.0.0");
        int port = in.port(key("listener", "port"), 9092, 0);
        String advertisedHost = in.host(key("listener", "advertisedHost"), null);
        ConfigKey advertisedPortKey = key("listener", "advertisedPort");
        int advertisedPort = in.port(advertisedPortKey, port, 0);
        if (advertisedPort == 0 && port != 0) {
            in.problem(advertisedPortKey, "0 (advertise the bound port) is only allowed with listener.port: 0");
        }
        return withTls(in, host, port, advertisedHost, advertisedPort);
    }

    /** The listener with its TLS keys, all {@code null} (plaintext) unless the certificate and key are both set. */
    private static ProxyConfig.Listener withTls(ConfigReader in, String host, int port, String advertisedHost,
                                                int advertisedPort) {
        Path certFile = in.optionalFile(key("listener", "tlsCertFile"));
        Path keyFile = in.optionalFile(key("listener", "tlsKeyFile"));
        ConfigKey caKey = key("listener", "tlsCaFile");
        Path caFile = in.optionalFile(caKey);
        ConfigKey clientAuthKey = key("listener", "tlsClientAuth");
        ProxyConfig.ClientAuth clientAuth = in.optionalChoice(clientAuthKey, ProxyConfig.ClientAuth.values());
        if ((certFile == null) != (keyFile == null)) {
            in.problem(key("listener", certFile == null ? "tlsCertFile" : "tlsKeyFile"),
                    "listener.tlsCertFile and listener.tlsKeyFile (the server certificate) must be set together");
        }
        boolean verifiesClients = clientAuth != null && clientAuth != ProxyConfig.ClientAuth.NONE;
        if (certFile == null && keyFile == null) {
            // Client authentication keys without server TLS would silently leave the listener plaintext.
            String onlyTls = "only applies to a TLS listener: set listener.tlsCertFile and listener.tlsKeyFile too";
            if (caFile != null) {
                in.problem(caKey, onlyTls);
            }
            if (verifiesClients) {
                in.problem(clientAuthKey, onlyTls);
            }
        } else if (verifiesClients && caFile == null) {
            in.problem(clientAuthKey, ConfigReader.word(clientAuth) + " needs listener.tlsCaFile, the CA that signs "
                    + "client certificates");
        } else if (caFile != null && !verifiesClients) {
            in.problem(caKey, "is only used to verify client certificates: set listener.tlsClientAuth to requested "
                    + "or required");
        }
        ProxyConfig.CertificatePrincipals principals = certificatePrincipals(in, verifiesClients);
        if (certFile == null || keyFile == null) {
            return new ProxyConfig.Listener(host, port, advertisedHost, advertisedPort);
        }
        return new ProxyConfig.Listener(host, port, advertisedHost, advertisedPort, certFile, keyFile, caFile,
                clientAuth == null ? ProxyConfig.ClientAuth.NONE : clientAuth, principals);
    }

    /** How client certificates name principals; only meaningful where the listener verifies them. */
    private static ProxyConfig.CertificatePrincipals certificatePrincipals(ConfigReader in, boolean verifiesClients) {
        ConfigKey fromKey = key("listener.tlsPrincipal", "from");
        ConfigKey rulesKey = key("listener.tlsPrincipal", "mappingRules");
        ProxyConfig.PrincipalSource from = in.optionalChoice(fromKey, ProxyConfig.PrincipalSource.values());
        SslPrincipalMapper rules = in.optionalPrincipalMappingRules(rulesKey);
        String onlyVerified = "names principals from client certificates: set listener.tlsClientAuth to required "
                + "(or requested) and listener.tlsCaFile too";
        if (!verifiesClients && from != null) {
            in.problem(fromKey, onlyVerified);
        }
        if (!verifiesClients && rules != null) {
            in.problem(rulesKey, onlyVerified);
        }
        if (from == null && rules == null) {
            return ProxyConfig.CertificatePrincipals.DEFAULT;
        }
        return new ProxyConfig.CertificatePrincipals(from == null ? ProxyConfig.PrincipalSource.SUBJECT : from,
                rules == null ? ProxyConfig.CertificatePrincipals.DEFAULT.mappingRules() : rules);
    }

    /** SASL on the Kafka listener, {@code null} unless {@code listener.sasl.mechanisms} is set. */
    private static ProxyConfig.Sasl sasl(ConfigReader in) {
        ConfigKey mechanismsKey = key("listener.sasl", "mechanisms");
        ConfigKey usersKey = key("listener.sasl", "usersFile");
        ConfigKey reauthKey = key("listener.sasl", "connectionsMaxReauth");
        List<String> mechanisms = in.optionalWords(mechanismsKey, ProxyConfig.Sasl.MECHANISMS);
        Path usersFile = in.optionalFile(usersKey);
        Duration maxReauth = in.optionalDuration(reauthKey);
        boolean oauthBearerOn = mechanisms != null && mechanisms.contains(OAUTHBEARER);
        ProxyConfig.OAuthBearer oauthBearer = oauthBearer(in, oauthBearerOn);
        if (mechanisms == null) {
            for (ConfigKey key : new ConfigKey[] {usersKey, reauthKey}) {
                if (key == usersKey ? usersFile != null : maxReauth != null) {
                    in.problem(key, "is only used with SASL: set listener.sasl.mechanisms too");
                }
            }
            return null;
        }
        // An unusable list (empty, its problem recorded) still asks for the users file, the common case.
        boolean usesUsers = mechanisms.isEmpty()
                || mechanisms.stream().anyMatch(mechanism -> !mechanism.equals(OAUTHBEARER));
        if (usersFile == null && usesUsers) {
            in.problem(usersKey, "is required with listener.sasl.mechanisms " + mechanisms
                    + ": the users that PLAIN and SCRAM authenticate against");
        } else if (usersFile != null && !usesUsers) {
            in.problem(usersKey, "is only used by PLAIN and SCRAM, which listener.sasl.mechanisms does not list");
        }
        return new ProxyConfig.Sasl(mechanisms, usersFile, maxReauth, oauthBearer);
    }

    /**
     * How OAUTHBEARER tokens are checked, {@code null} unless {@code on}; its keys are refused
     * without OAUTHBEARER, and exactly one key source is required with it.
     */
    private static ProxyConfig.OAuthBearer oauthBearer(ConfigReader in, boolean on) {
        String section = "listener.sasl.oauthbearer";
        ConfigKey fileKey = key(section, "jwksFile");
        ConfigKey urlKey = key(section, "jwksUrl");
        ConfigKey caKey = key(section, "jwksCaFile");
        ConfigKey refreshKey = key(section, "jwksRefreshInterval");
        ConfigKey fetchTimeoutKey = key(section, "jwksFetchTimeout");
        ConfigKey issuerKey = key(section, "issuer");
        ConfigKey audienceKey = key(section, "audience");
        ConfigKey claimKey = key(section, "principalClaim");
        ConfigKey skewKey = key(section, "clockSkew");
        Path jwksFile = in.optionalFile(fileKey);
        URI jwksUrl = in.optionalHttpsUrl(urlKey);
        Path caFile = in.optionalFile(caKey);
        Duration refresh = in.optionalDuration(refreshKey);
        Duration fetchTimeout = in.optionalDuration(fetchTimeoutKey);
        String issuer = in.optionalText(issuerKey);
        List<String> audience = in.optionalTexts(audienceKey);
        String claim = in.optionalText(claimKey);
        Duration skew = in.optionalDuration(skewKey);
        if (!on) {
            Object[] values = {jwksFile, jwksUrl, caFile, refresh, fetchTimeout, issuer, audience, claim, skew};
            ConfigKey[] keys = {fileKey, urlKey, caKey, refreshKey, fetchTimeoutKey, issuerKey, audienceKey, claimKey,
                    skewKey};
            for (int i = 0; i < keys.length; i++) {
                if (values[i] != null) {
                    in.problem(keys[i], "is only used with OAUTHBEARER: add it to listener.sasl.mechanisms");
                }
            }
            return null;
        }
        if ((jwksFile == null) == (jwksUrl == null)) {
            in.problem(fileKey, "exactly one of " + fileKey.path() + " and " + urlKey.path()
                    + " is required with OAUTHBEARER: where the token signing keys (JWKS) come from");
        }
        if (jwksUrl == null) {
            for (ConfigKey key : new ConfigKey[] {caKey, refreshKey, fetchTimeoutKey}) {
                if (key == caKey ? caFile != null : (key == refreshKey ? refresh : fetchTimeout) != null) {
                    in.problem(key, "is only used with " + urlKey.path());
                }
            }
        }
        if (skew != null && skew.toSeconds() > Integer.MAX_VALUE) {
            in.problem(skewKey, "is too large");
        }
        return new ProxyConfig.OAuthBearer(jwksFile, jwksUrl, caFile,
                Objects.requireNonNullElse(refresh, Duration.ofMinutes(5)),
                Objects.requireNonNullElse(fetchTimeout, Duration.ofSeconds(10)), issuer,
                audience == null ? List.of() : audience, Objects.requireNonNullElse(claim, "sub"),
                Objects.requireNonNullElse(skew, Duration.ofSeconds(30)));
    }

    /** The DNS cache bounds for broker names: whole seconds (Netty's cache counts in seconds), min not above max. */
    private static ProxyConfig.BackendDns backendDns(ConfigReader in) {
        ProxyConfig.BackendDns defaults = ProxyConfig.BackendDns.DEFAULTS;
        Duration minTtl = wholeSeconds(in, key("backends.dns", "minTtl"), defaults.minTtl());
        Duration maxTtl = wholeSeconds(in, key("backends.dns", "maxTtl"), defaults.maxTtl());
        Duration negativeTtl = wholeSeconds(in, key("backends.dns", "negativeTtl"), defaults.negativeTtl());
        if (maxTtl.compareTo(minTtl) < 0) {
            in.problem(key("backends.dns", "maxTtl"), "is " + maxTtl.toSeconds() + "s, below backends.dns.minTtl ("
                    + minTtl.toSeconds() + "s): the longest a broker address is cached cannot be shorter than the "
                    + "shortest");
        }
        return new ProxyConfig.BackendDns(minTtl, maxTtl, negativeTtl);
    }

    private static Duration wholeSeconds(ConfigReader in, ConfigKey key, Duration fallback) {
        Duration value = in.duration(key, fallback);
        if (value.toMillis() % 1000 != 0) {
            in.problem(key, "is " + value.toMillis() + "ms; the DNS cache counts whole seconds, like 1s or 30s");
            return fallback;
        }
        return value;
    }

    /**
     * The service identity for brokers that require SASL, {@code null} unless {@code backends.sasl}
     * has a key; all three keys are then required (the password file is read at start-up, not here).
     */
    private static ProxyConfig.BackendSasl backendSasl(ConfigReader in) {
        ConfigKey mechanismKey = key("backends.sasl", "mechanism");
        ConfigKey usernameKey = key("backends.sasl", "username");
        ConfigKey passwordKey = key("backends.sasl", "passwordFile");
        String mechanism = in.optionalText(mechanismKey);
        String username = in.optionalText(usernameKey);
        Path passwordFile = in.optionalFile(passwordKey);
        if (!in.isSet(mechanismKey) && !in.isSet(usernameKey) && !in.isSet(passwordKey)) {
            return null;
        }
        List<String> known = ProxyConfig.BackendSasl.MECHANISMS;
        // A key that is set but unusable has its problem recorded already.
        if (!in.isSet(mechanismKey)) {
            in.problem(mechanismKey, "is required with the other backends.sasl keys: one of " + String.join(", ", known));
        } else if (mechanism != null && !known.contains(mechanism)) {
            in.problem(mechanismKey, "is " + mechanism + ", not a mechanism the proxy can log in to brokers with: "
                    + "one of " + String.join(", ", known));
        }
        if (!in.isSet(usernameKey)) {
            in.problem(usernameKey, "is required with backends.sasl: the user the proxy logs in to the brokers as");
        }
        if (!in.isSet(passwordKey)) {
            in.problem(passwordKey, "is required with backends.sasl: the mounted file holding that user's password");
        }
        return new ProxyConfig.BackendSasl(mechanism, username, passwordFile);
    }

    /** TLS towards the brokers, {@code null} unless {@code backends.tls.enabled} is true. */
    private static ProxyConfig.BackendTls backendTls(ConfigReader in) {
        ConfigKey enabledKey = key("backends.tls", "enabled");
        boolean enabled = in.bool(enabledKey, false);
        Path caFile = in.optionalFile(key("backends.tls", "caFile"));
        Path certFile = in.optionalFile(key("backends.tls", "certFile"));
        Path keyFile = in.optionalFile(key("backends.tls", "keyFile"));
        boolean verifyHostname = in.bool(key("backends.tls", "verifyHostname"), true);
        List<String> protocols = in.optionalWords(key("backends.tls", "protocols"), ProxyConfig.BackendTls.PROTOCOLS);
        if ((certFile == null) != (keyFile == null)) {
            in.problem(key("backends.tls", certFile == null ? "certFile" : "keyFile"),
                    "backends.tls.certFile and backends.tls.keyFile (the proxy's client certificate) must be set "
                            + "together");
        }
        if (!enabled) {
            if (caFile != null || certFile != null || keyFile != null || protocols != null) {
                // TLS files without TLS would leave broker links plaintext while the file says otherwise.
                in.problem(enabledKey, "is false, but other backends.tls keys are set: set backends.tls.enabled: "
                        + "true to use TLS towards the brokers");
            }
            return null;
        }
        return new ProxyConfig.BackendTls(caFile, certFile, keyFile, verifyHostname,
                protocols == null ? ProxyConfig.BackendTls.PROTOCOLS : protocols);
    }

    private static ProxyConfig.Etcd etcd(ConfigReader in) {
        ProxyConfig.Etcd etcd = new ProxyConfig.Etcd(
                in.etcdEndpoints(key("etcd", "endpoints"), null),
                in.etcdPrefix(key("etcd", "prefix"), "/kafscale"),
                in.duration(key("etcd", "connectTimeout"), DEFAULT_CONNECT_TIMEOUT),
                in.optionalFile(key("etcd", "usernameFile")),
                in.optionalFile(key("etcd", "passwordFile")),
                in.optionalFile(key("etcd", "tlsCaFile")),
                in.optionalFile(key("etcd", "tlsCertFile")),
                in.optionalFile(key("etcd", "tlsKeyFile")));
        if ((etcd.usernameFile() == null) != (etcd.passwordFile() == null)) {
            in.problem(key("etcd", etcd.usernameFile() == null ? "usernameFile" : "passwordFile"),
                    "etcd.usernameFile and etcd.passwordFile must be set together");
        }
        if ((etcd.tlsCertFile() == null) != (etcd.tlsKeyFile() == null)) {
            in.problem(key("etcd", etcd.tlsCertFile() == null ? "tlsCertFile" : "tlsKeyFile"),
                    "etcd.tlsCertFile and etcd.tlsKeyFile (client certificate) must be set together");
        }
        checkEtcdSchemes(in, etcd);
        return etcd;
    }

    /**
     * One scheme for all endpoints (jetcd uses one channel setting for all of them, so a mixed list
     * would be half plaintext or half broken), and secrets only over {@code https://}.
     */
    private static void checkEtcdSchemes(ConfigReader in, ProxyConfig.Etcd etcd) {
        ConfigKey endpointsKey = key("etcd", "endpoints");
        boolean plainEndpoint = etcd.endpoints().stream().anyMatch(url -> url.startsWith("http://"));
        boolean tlsEndpoint = etcd.endpoints().stream().anyMatch(url -> url.startsWith("https://"));
        boolean tlsFiles = etcd.tlsCaFile() != null || etcd.tlsCertFile() != null;
        if (plainEndpoint && tlsEndpoint) {
            in.problem(endpointsKey, "mixes http:// and https:// endpoints: use https:// for all of them (or "
                    + "http:// for all, without TLS)");
        } else if (plainEndpoint && tlsFiles) {
            in.problem(endpointsKey, "TLS files are set, so every endpoint must use https://");
        } else if (plainEndpoint && etcd.usernameFile() != null) {
            in.problem(endpointsKey, "etcd.usernameFile and etcd.passwordFile are set, so every endpoint must "
                    + "use https://: over http:// the password would cross the network in clear text");
        }
    }

    private static ProxyConfig.Routing routing(ConfigReader in) {
        ConfigKey initialKey = key("routing", "retryInitialBackoff");
        Duration initial = in.duration(initialKey, Duration.ofMillis(20));
        ConfigKey maxKey = key("routing", "retryMaxBackoff");
        Duration max = in.duration(maxKey, Duration.ofMillis(500));
        if (max.compareTo(MIN_RETRY_MAX_BACKOFF) < 0) {
            // Retries end with the request's budget, not a count: the ceiling is what spaces them out.
            in.problem(maxKey, "must be at least " + MIN_RETRY_MAX_BACKOFF.toMillis() + "ms (was " + max.toMillis()
                    + "ms): a request whose partitions keep being rejected is retried until its budget ends, "
                    + "so a smaller ceiling retries it hundreds of times a second");
        } else if (initial.compareTo(max) > 0) {
            in.problem(initialKey, "must not exceed routing.retryMaxBackoff (" + initial.toMillis() + "ms > "
                    + max.toMillis() + "ms)");
        }
        return new ProxyConfig.Routing(
                in.duration(key("routing", "metadataMaxAge"), Duration.ofSeconds(2)),
                initial, max,
                in.optionalDuration(key("routing", "staleRoutesUnreadyAfter")),
                in.duration(key("routing", "initialLoadTimeout"), Duration.ofSeconds(60)),
                in.bool(key("routing", "startWithoutEtcd"), false));
    }

    private static ConfigKey key(String section, String name) {
        return new ConfigKey(section, name);
    }
}
