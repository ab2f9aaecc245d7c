package io.leasehold.proxy.config;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.security.ssl.SslPrincipalMapper;

/**
 * The proxy's validated configuration, as read by {@link ConfigLoader}. Every value here has
 * already been checked: ports are in range, durations positive, lists non-empty.
 *
 * <p>{@code listener.port} and {@code admin.port} may be {@code 0}, meaning "bind any free port"
 * (tests use this; the proxy prints the bound port in its {@code READY} line). An
 * {@code advertisedPort} of {@code 0} is only possible together with {@code listener.port: 0}
 * and means "advertise the port actually bound".
 */
public record ProxyConfig(Listener listener, Etcd etcd, Backends backends, Admin admin,
                          Limits limits, Routing routing, Shutdown shutdown, Sasl sasl, Presentation presentation,
                          Authorization authorization, Logging logging, Audit audit, Quotas quotas) {

    /** A configuration that shows clients a single node, without authorization, logging at the default levels. */
    public ProxyConfig(Listener listener, Etcd etcd, Backends backends, Admin admin, Limits limits, Routing routing,
                       Shutdown shutdown, Sasl sasl) {
        this(listener, etcd, backends, admin, limits, routing, shutdown, sasl, Presentation.SINGLE_NODE, null,
                Logging.DEFAULT, Audit.OFF, Quotas.OFF);
    }

    /** A configuration without SASL on the listener and without authorization that shows clients a single node. */
    public ProxyConfig(Listener listener, Etcd etcd, Backends backends, Admin admin, Limits limits, Routing routing,
                       Shutdown shutdown) {
        this(listener, etcd, backends, admin, limits, routing, shutdown, null);
    }

    /** How much a logger writes, from the most to nothing. */
    public enum LogLevel {
        TRACE, DEBUG, INFO, WARN, ERROR, OFF
    }

    /**
     * Log levels ({@code logging.*}): {@code level} for every logger, and {@code levels} for the
     * loggers named there (a package or class name; the longest matching name applies).
     */
    public record Logging(LogLevel level, Map<String, LogLevel> levels) {
        /** Every logger at {@code info}. */
        public static final Logging DEFAULT = new Logging(LogLevel.INFO, Map.of());

        public Logging {
            levels = Map.copyOf(levels);
        }
    }

    /** Whether requests are checked against an ACL file. */
    public boolean authorizes() {
        return authorization != null;
    }

    /**
     * Authorization ({@code authorization}; {@code null} when not configured): the mounted ACL
     * file every request is checked against. Present means on: what it does not allow is denied.
     */
    public record Authorization(Path aclsFile) {
    }

    /**
     * The audit log ({@code audit}): {@code file} is an absolute path, {@code -} for standard
     * output, or null for no audit log; {@code allowedReads} also writes allowed reads and writes
     * (at most once a minute per principal and resource), not only denials and mutations.
     */
    public record Audit(String file, boolean allowedReads) {
        /** No audit log. */
        public static final Audit OFF = new Audit(null, false);
        /** The {@code file} value meaning standard output. */
        public static final String STANDARD_OUTPUT = "-";

        /** Whether an audit log is kept. */
        public boolean enabled() {
            return file != null;
        }
    }

    /**
     * Client quotas ({@code quotas}): {@code file} is the mounted quotas file, null for none;
     * {@code proxyId} names this proxy among the tier's registrations in etcd, null for this
     * host's name and the bound listener port; {@code windowCount} samples of {@code windowSize}
     * are the window a client's rate is measured over (Kafka's {@code quota.window.num} and
     * {@code quota.window.size.seconds}).
     */
    public record Quotas(Path file, String proxyId, int windowCount, Duration windowSize) {
        /** Kafka's {@code quota.window.num}. */
        public static final int DEFAULT_WINDOW_COUNT = 11;
        /** Kafka's {@code quota.window.size.seconds}. */
        public static final Duration DEFAULT_WINDOW_SIZE = Duration.ofSeconds(1);
        /** No quotas. */
        public static final Quotas OFF = new Quotas(null, null);

        /** Measured over Kafka's default window. */
        public Quotas(Path file, String proxyId) {
            this(file, proxyId, DEFAULT_WINDOW_COUNT, DEFAULT_WINDOW_SIZE);
        }

        /** Whether clients are held to a quotas file. */
        public boolean enabled() {
            return file != null;
        }
    }

    /** How clients are shown the cluster: the presentation mode and, per node, where it is reached. */
    public enum PresentationMode {
        /** The whole proxy tier is one broker at the advertised address. */
        SINGLE_NODE,
        /** One node per backend broker id, each at an address of its own that every proxy serves. */
        NODE_PER_OWNER
    }

    /**
     * The presentation ({@code presentation.*}). In node-per-owner mode the node of broker id
     * {@code id} (for {@code firstNodeId <= id < firstNodeId + nodeCount}) is advertised at
     * {@code nodeHostPattern} with {@code {id}} replaced, or {@code listener.advertisedHost}
     * without a pattern, on port {@code nodePortBase + id - firstNodeId}, or
     * {@code listener.advertisedPort} without a port range ({@code nodePortBase} 0). Every proxy
     * listens on every node port of the range, on {@code listener.host}. In single-node mode
     * {@code produceOwnerDeadline} is how long one owner may leave its part of a Produce
     * unanswered before the other owners' partitions are answered without it (null in
     * node-per-owner mode, where a client connection to a node carries one owner's partitions).
     */
    public record Presentation(PresentationMode mode, int nodePortBase, String nodeHostPattern, int firstNodeId,
                               int nodeCount, Duration produceOwnerDeadline) {
        /** Today's and the default presentation: one node, every owner of a Produce awaited. */
        public static final Presentation SINGLE_NODE = singleNode(null);

        /** What a node host pattern replaces with the node id. */
        public static final String NODE_ID_PLACEHOLDER = "{id}";

        /** A node-per-owner (or, with no node settings, single-node) presentation without an owner deadline. */
        public Presentation(PresentationMode mode, int nodePortBase, String nodeHostPattern, int firstNodeId,
                            int nodeCount) {
            this(mode, nodePortBase, nodeHostPattern, firstNodeId, nodeCount, null);
        }

        /**
         * One node, answering a Produce without an owner that is silent for
         * {@code produceOwnerDeadline} (null: every owner is awaited).
         */
        public static Presentation singleNode(Duration produceOwnerDeadline) {
            return new Presentation(PresentationMode.SINGLE_NODE, 0, null, 0, 0, produceOwnerDeadline);
        }

        /** Whether the proxy listens on a port per node. */
        public boolean hasNodePorts() {
            return mode == PresentationMode.NODE_PER_OWNER && nodePortBase > 0;
        }
    }

    /** Whether clients must authenticate with SASL on the Kafka listener. */
    public boolean saslRequired() {
        return sasl != null;
    }

    /**
     * SASL on the Kafka listener ({@code listener.sasl}; {@code null} when not configured): the
     * mechanisms offered, in the order the handshake lists them, the users file they check, and
     * how long an authentication lasts before the client must re-authenticate (KIP-368;
     * {@code null}: for the life of the connection).
     */
    public record Sasl(List<String> mechanisms, Path usersFile, Duration connectionsMaxReauth,
                       OAuthBearer oauthbearer) {
        /** The mechanisms the proxy implements, by their SASL names. */
        public static final List<String> MECHANISMS = List.of("SCRAM-SHA-512", "SCRAM-SHA-256", "PLAIN",
                "OAUTHBEARER");

        public Sasl {
            mechanisms = List.copyOf(mechanisms);
        }

        /** SASL without OAUTHBEARER. */
        public Sasl(List<String> mechanisms, Path usersFile, Duration connectionsMaxReauth) {
            this(mechanisms, usersFile, connectionsMaxReauth, null);
        }
    }

    /**
     * How OAUTHBEARER tokens are checked ({@code listener.sasl.oauthbearer}): the signing keys
     * from a mounted JWKS file ({@code jwksFile}) or an {@code https} URL ({@code jwksUrl}, fetched
     * every {@code jwksRefreshInterval}, each fetch bounded by {@code jwksFetchTimeout}, trusting
     * {@code jwksCaFile} or the system trust store); the issuer and audiences a token must name
     * ({@code null} / empty: not checked); the claim that names the principal; the clock skew
     * allowed on expiry and not-before.
     */
    public record OAuthBearer(Path jwksFile, URI jwksUrl, Path jwksCaFile, Duration jwksRefreshInterval,
                              Duration jwksFetchTimeout, String issuer, List<String> audience, String principalClaim,
                              Duration clockSkew) {
        public OAuthBearer {
            audience = List.copyOf(audience);
        }
    }

    /**
     * Where clients connect, and the single address the proxy tier advertises to them. With
     * {@code tlsCertFile} and {@code tlsKeyFile} (PEM files mounted from a Secret) the listener
     * speaks TLS only; {@code tlsCaFile} is the CA that signs client certificates, set exactly when
     * {@code tlsClientAuth} is not {@code NONE}. {@code null} paths mean "not used";
     * {@link ServerSslContextFactory} turns them into a TLS context.
     */
    public record Listener(String host, int port, String advertisedHost, int advertisedPort,
                           Path tlsCertFile, Path tlsKeyFile, Path tlsCaFile, ClientAuth tlsClientAuth,
                           CertificatePrincipals tlsPrincipal) {

        /** A plaintext listener. */
        public Listener(String host, int port, String advertisedHost, int advertisedPort) {
            this(host, port, advertisedHost, advertisedPort, null, null, null, ClientAuth.NONE);
        }

        /** A listener whose verified client certificates name their principal by Kafka's default rule. */
        public Listener(String host, int port, String advertisedHost, int advertisedPort,
                        Path tlsCertFile, Path tlsKeyFile, Path tlsCaFile, ClientAuth tlsClientAuth) {
            this(host, port, advertisedHost, advertisedPort, tlsCertFile, tlsKeyFile, tlsCaFile, tlsClientAuth,
                    CertificatePrincipals.DEFAULT);
        }

        /** Whether clients must connect with TLS. */
        public boolean tls() {
            return tlsCertFile != null;
        }
    }

    /**
     * How a verified client certificate names the connection's principal
     * ({@code listener.tlsPrincipal.from}, {@code listener.tlsPrincipal.mappingRules}): the subject's
     * distinguished name or the first subject alternative name of one type, turned into the
     * {@code User:} name by rules in the syntax of Kafka's {@code ssl.principal.mapping.rules}.
     */
    public record CertificatePrincipals(PrincipalSource from, SslPrincipalMapper mappingRules) {
        /** Kafka's default: the subject's whole distinguished name (RFC 2253 form) is the name. */
        public static final CertificatePrincipals DEFAULT =
                new CertificatePrincipals(PrincipalSource.SUBJECT, SslPrincipalMapper.fromRules("DEFAULT"));
    }

    /** Which part of a client certificate the principal mapping rules are applied to. */
    public enum PrincipalSource {
        /** The subject's distinguished name, as Kafka uses it. */
        SUBJECT,
        /** The first DNS name among the subject alternative names. */
        DNS_SAN,
        /** The first URI among the subject alternative names (e.g. a SPIFFE ID). */
        URI_SAN,
        /** The first e-mail address among the subject alternative names. */
        EMAIL_SAN
    }

    /** Whether clients of a TLS listener must present a certificate signed by {@code listener.tlsCaFile}. */
    public enum ClientAuth {
        /** No client certificate is asked for. */
        NONE,
        /** A client certificate is asked for and verified if sent; clients without one are accepted. */
        REQUESTED,
        /** Clients without a valid certificate fail the handshake. */
        REQUIRED
    }

    /**
     * The etcd cluster holding the ownership keys; {@code prefix} is the key-layout prefix.
     * Credentials and TLS material are files (mounted from a Kubernetes Secret), never inline
     * values: {@code null} paths mean "not used". {@link EtcdClientFactory} turns this into a client.
     */
    public record Etcd(List<String> endpoints, String prefix, Duration connectTimeout,
                       Path usernameFile, Path passwordFile, Path tlsCaFile, Path tlsCertFile, Path tlsKeyFile) {
        public Etcd {
            endpoints = List.copyOf(endpoints);
        }

        /** Plain-text etcd without authentication. */
        public Etcd(List<String> endpoints, String prefix, Duration connectTimeout) {
            this(endpoints, prefix, connectTimeout, null, null, null, null, null);
        }
    }

    /**
     * Static brokers used until etcd registrations say more, timeouts towards brokers, and the
     * largest response frame a broker may send (fetch responses are far larger than requests):
     * {@code requestTimeout} bounds forwarded requests whose own fields give no longer bound,
     * {@code controlRequestTimeout} bounds each broker's answer to an idempotent read
     * (Metadata, ApiVersions, describe requests) before the next broker is asked; {@code dns}
     * bounds how long broker name lookups are cached.
     */
    public record Backends(List<HostPort> bootstrap, Duration connectTimeout, Duration requestTimeout,
                           Duration controlRequestTimeout, int maxResponseBytes, BackendTls tls, BackendDns dns,
                           BackendSasl sasl) {
        public Backends {
            bootstrap = List.copyOf(bootstrap);
        }

        /** Broker connections without SASL. */
        public Backends(List<HostPort> bootstrap, Duration connectTimeout, Duration requestTimeout,
                        Duration controlRequestTimeout, int maxResponseBytes, BackendTls tls, BackendDns dns) {
            this(bootstrap, connectTimeout, requestTimeout, controlRequestTimeout, maxResponseBytes, tls, dns, null);
        }

        /** Plaintext broker connections with the default DNS cache bounds. */
        public Backends(List<HostPort> bootstrap, Duration connectTimeout, Duration requestTimeout,
                        Duration controlRequestTimeout, int maxResponseBytes) {
            this(bootstrap, connectTimeout, requestTimeout, controlRequestTimeout, maxResponseBytes, null,
                    BackendDns.DEFAULTS);
        }
    }

    /**
     * How long broker name lookups are cached ({@code backends.dns}), whole seconds: an answer at
     * least {@code minTtl} and at most {@code maxTtl} whatever its record's TTL says, a failed
     * lookup {@code negativeTtl}.
     */
    public record BackendDns(Duration minTtl, Duration maxTtl, Duration negativeTtl) {
        /** 1 s, 30 s and 2 s. */
        public static final BackendDns DEFAULTS = new BackendDns(Duration.ofSeconds(1), Duration.ofSeconds(30),
                Duration.ofSeconds(2));
    }

    /**
     * The one service identity the proxy authenticates as on every broker connection
     * ({@code backends.sasl}); {@code null} in {@link Backends} for brokers without SASL.
     *
     * @param mechanism    one of {@link #MECHANISMS}
     * @param passwordFile the mounted file holding the password, read at start-up and re-read when it changes
     */
    public record BackendSasl(String mechanism, String username, Path passwordFile) {
        /** The mechanisms the proxy can log in to brokers with, by their SASL names. */
        public static final List<String> MECHANISMS = List.of("SCRAM-SHA-512", "SCRAM-SHA-256", "PLAIN");
    }

    /**
     * TLS on every broker connection ({@code backends.tls}; {@code null} when not enabled).
     * {@code caFile} {@code null} means the JVM's default trust store; {@code certFile} and
     * {@code keyFile} are an optional client certificate; {@code protocols} are the TLS versions
     * offered, in the JDK's names.
     */
    public record BackendTls(Path caFile, Path certFile, Path keyFile, boolean verifyHostname, List<String> protocols) {
        /** The TLS versions the proxy offers to brokers unless configured otherwise. */
        public static final List<String> PROTOCOLS = List.of("TLSv1.3", "TLSv1.2");

        public BackendTls {
            protocols = List.copyOf(protocols);
        }
    }

    /**
     * The admin HTTP endpoint: {@code /healthz}, {@code /readyz}, {@code /metrics}, and
     * {@code /routes} unless {@code routes} is {@link RoutesAccess#OFF}.
     */
    public record Admin(String host, int port, RoutesAccess routes) {}

    /** Whether the admin endpoint serves {@code /routes}, which names every broker, topic and group. */
    public enum RoutesAccess {
        /** {@code /routes} answers anyone who can reach the admin port. */
        OPEN,
        /** {@code /routes} answers 404, as if it did not exist. */
        OFF
    }

    /**
     * Resource limits protecting the proxy from single clients ({@code limits.*}), held by the
     * Kafka listener. A TLS client must finish its handshake within {@code tlsHandshakeTimeout},
     * and every client must send its first complete request within {@code firstRequestTimeout}
     * and complete each frame within {@code frameCompletionTimeout}, so connections that never do
     * cannot pile up; one client address holds at most {@code maxConnectionsPerIp} of the
     * {@code maxConnections} slots. At most {@code acceptsPerSecond} connections are taken on per
     * second, and on a TLS listener at most {@code tlsHandshakesPerSecond} of them start a
     * handshake; connects beyond either are closed at once. One request names at most
     * {@code maxPartitionsPerRequest} partitions, one Metadata request at most
     * {@code maxTopicsPerMetadataRequest} topics. One connection processes at most
     * {@code maxInFlightPerConnection} requests at once and starts at most
     * {@code requestsPerSecondPerConnection} a second; further ones wait, and the connection is
     * not read meanwhile. A request not answered within {@code requestDeadline} ({@code null}: no
     * bound) closes its connection. {@code memoryBudget} is the proxy-wide budget in bytes
     * ({@code null}: half of the JVM's direct-memory limit).
     */
    public record Limits(int maxFrameBytes, int maxConnections, Duration idleTimeout, int maxInFlightPerConnection,
                         Duration tlsHandshakeTimeout, int maxConnectionsPerIp, Duration firstRequestTimeout,
                         Duration frameCompletionTimeout, Long memoryBudget, int acceptsPerSecond,
                         int tlsHandshakesPerSecond, int maxPartitionsPerRequest, int maxTopicsPerMetadataRequest,
                         int requestsPerSecondPerConnection, Duration requestDeadline) {}

    /**
     * Routing behaviour: metadata cache age, retry backoff bounds, an optional readiness bound
     * on stale routes ({@code null}: staleness alone never makes the proxy unready, since every
     * replica shares etcd and would turn unready at once), how long start-up waits for the first
     * routing snapshot, and whether the proxy then serves without it (on the bootstrap brokers and
     * the hash fallback, switching to the snapshot once it loads) instead of exiting.
     */
    public record Routing(Duration metadataMaxAge, Duration retryInitialBackoff, Duration retryMaxBackoff,
                          Duration staleRoutesUnreadyAfter, Duration initialLoadTimeout, boolean startWithoutEtcd) {}

    /** Graceful shutdown: how long in-flight requests may take after SIGTERM. */
    public record Shutdown(Duration drainTimeout) {}
}
