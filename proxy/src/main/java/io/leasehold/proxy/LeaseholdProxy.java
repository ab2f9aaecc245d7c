package io.leasehold.proxy;

import io.etcd.jetcd.Client;
import io.leasehold.proxy.access.AccessRules;
import io.leasehold.proxy.admin.AdminServer;
import io.leasehold.proxy.admin.EventLoopHeartbeat;
import io.leasehold.proxy.admin.ProxyMetrics;
import io.leasehold.proxy.admin.RoutingHealthProbe;
import io.leasehold.proxy.admin.RoutingMode;
import io.leasehold.proxy.audit.AllowedAccessSampler;
import io.leasehold.proxy.audit.AuditFileWriter;
import io.leasehold.proxy.audit.AuditLog;
import io.leasehold.proxy.audit.AuditMetrics;
import io.leasehold.proxy.audit.AuthenticationAudit;
import io.leasehold.proxy.audit.RequestAuditing;
import io.leasehold.proxy.authorization.AclAuthorizer;
import io.leasehold.proxy.authorization.AclsFile;
import io.leasehold.proxy.authorization.AuthorizationMetrics;
import io.leasehold.proxy.authorization.Authorizer;
import io.leasehold.proxy.backend.BackendConnector;
import io.leasehold.proxy.backend.BackendListener;
import io.leasehold.proxy.backend.BackendSession;
import io.leasehold.proxy.backend.BrokerCredentials;
import io.leasehold.proxy.backend.BrokerLogin;
import io.leasehold.proxy.backend.BrokerNameResolution;
import io.leasehold.proxy.config.ProxyConfig;
import io.leasehold.proxy.dispatch.RequestDispatcher;
import io.leasehold.proxy.files.MountedFileWatcher;
import io.leasehold.proxy.frontend.FrontendServer;
import io.leasehold.proxy.owners.BackendReachability;
import io.leasehold.proxy.owners.OwnerLookup;
import io.leasehold.proxy.presentation.ClusterPresentation;
import io.leasehold.proxy.presentation.NodeAddresses;
import io.leasehold.proxy.presentation.ProxyIdentity;
import io.leasehold.proxy.protocol.FrameCap;
import io.leasehold.proxy.quotas.ClientQuotaApis;
import io.leasehold.proxy.quotas.ClientQuotas;
import io.leasehold.proxy.quotas.QuotaEnforcement;
import io.leasehold.proxy.quotas.QuotaMetrics;
import io.leasehold.proxy.quotas.QuotaWindow;
import io.leasehold.proxy.quotas.QuotasFile;
import io.leasehold.proxy.quotas.TierShare;
import io.leasehold.proxy.request.MemoryBudget;
import io.leasehold.proxy.request.RequestHandler;
import io.leasehold.proxy.security.AuthenticationMetrics;
import io.leasehold.proxy.security.JwksMetrics;
import io.leasehold.proxy.security.OAuthBearerSettings;
import io.leasehold.proxy.security.SaslGate;
import io.leasehold.proxy.security.SaslSettings;
import io.leasehold.proxy.security.UsersFile;
import io.leasehold.proxy.security.VerificationKeys;
import io.leasehold.proxy.tls.CertificateExpiryMetrics;
import io.leasehold.proxy.tls.ClientCertificatePrincipals;
import io.leasehold.proxy.tls.ProxyTls;
import io.leasehold.proxy.tls.ReloadingTls;
import io.leasehold.proxy.transport.NettyTransport;
import io.leasehold.proxy.transport.SocketTuning;
import io.leasehold.routing.claim.ProxyRegistry;
import io.leasehold.routing.keys.KeySchema;
import io.leasehold.routing.snapshot.BrokerAddress;
import io.leasehold.routing.watch.OwnershipWatcher;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.netty.util.internal.PlatformDependent;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.kafka.common.protocol.ApiKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running proxy: every component wired from the configuration, in one place. Start order is
 * etcd watch → admin endpoints → (snapshot loaded, or not with {@code routing.startWithoutEtcd})
 * → backends → Kafka listener;
 * {@link #drainAndClose()} stops them.
 */
public final class LeaseholdProxy implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LeaseholdProxy.class);
    private static final Duration PROBE_INTERVAL = Duration.ofSeconds(2);
    private static final Duration HEARTBEAT_INTERVAL = Duration.ofSeconds(1);
    /** An event loop that has not run its heartbeat this long is stuck: /healthz fails. */
    private static final Duration EVENT_LOOP_STUCK_AFTER = Duration.ofSeconds(10);
    /** How often the mounted users, ACL, JWKS and certificate files are looked at for a change. */
    private static final Duration MOUNTED_FILE_CHECK = Duration.ofSeconds(1);
    /** Audit events waiting for the writer beyond this many are dropped (and counted). */
    private static final int AUDIT_QUEUE_CAPACITY = 65_536;
    /** A proxy's tier registration outlives it by at most this long (etcd lease TTL) when it dies unclean. */
    private static final Duration TIER_LEASE_TTL = Duration.ofSeconds(10);
    /** How often each proxy counts the tier's live proxies. */
    private static final Duration TIER_COUNT_INTERVAL = Duration.ofSeconds(2);
    /** With {@code audit.allowedReads}: one line per principal and resource per this interval. */
    private static final Duration AUDIT_ALLOWED_INTERVAL = Duration.ofMinutes(1);
    /** Principal and resource pairs remembered for that interval; the least recent are forgotten first. */
    private static final int AUDIT_ALLOWED_REMEMBERED = 100_000;

    private final ProxyConfig config;
    private final Client etcd;
    private final OwnershipWatcher watcher;
    private final RoutingMode routingMode;
    private final EventLoopGroup bossGroup;
    private final EventLoopGroup workerGroup;
    private final BrokerNameResolution brokerNames;
    private final BackendSession control;
    private final BackendReachability reachability;
    private final FrontendServer frontend;
    private final AdminServer admin;
    private final EventLoopHeartbeat heartbeat;
    private final ClusterPresentation presentation;
    /** Reloads the users, ACL and certificate files when they change. */
    private final MountedFileWatcher mountedFiles;
    /** The OAUTHBEARER signing keys; {@code null} without OAUTHBEARER. */
    private final VerificationKeys tokenKeys;
    /** This proxy's registration in the tier, counting its peers; {@code null} without quotas or before start. */
    private volatile ProxyRegistry tier;
    /** Writes the audit log; {@code null} without {@code audit.file}. */
    private final AuditFileWriter auditWriter;
    private volatile boolean draining;
    private InetSocketAddress boundAddress;

    /**
     * Wires everything; nothing listens until {@link #start()}.
     *
     * @param tls   the listener's and the brokers' TLS contexts (reloaded when their files change)
     *              and the etcd certificates' expiries
     * @param users the loaded users file when the listener offers PLAIN or SCRAM, else {@code null}
     * @param tokenKeys the OAUTHBEARER token signing keys when the listener offers it, else {@code null};
     *              kept current and closed here
     * @param acls  the loaded ACL file when the proxy authorizes, else {@code null}; reloaded when it changes
     * @param brokerCredentials the service identity's password when {@code backends.sasl} is set, else
     *              {@code null}; reloaded when its file changes
     * @param build the version and commit, exported as {@code leasehold_build_info}
     * @param auditOut where audit lines go when {@code audit.file} is set, else {@code null}; closed here
     * @param quotas the loaded quotas file when {@code quotas.file} is set, else {@code null}; reloaded when it
     *              changes
     */
    public LeaseholdProxy(ProxyConfig config, Client etcd, ProxyTls tls, UsersFile users,
                          VerificationKeys tokenKeys, AclsFile acls, BrokerCredentials brokerCredentials,
                          BuildInfo build, OutputStream auditOut, QuotasFile quotas) {
        this.tokenKeys = tokenKeys;
        this.config = config;
        this.etcd = etcd;
        this.watcher = OwnershipWatcher.start(etcd, new KeySchema(config.etcd().prefix()));
        this.mountedFiles = new MountedFileWatcher(MOUNTED_FILE_CHECK);
        if (users != null) {
            users.reloadWith(mountedFiles);
        }
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        build.bindTo(registry);
        if (tokenKeys != null) {
            tokenKeys.keepCurrent(mountedFiles, new JwksMetrics(registry));
        }
        ProxyMetrics metrics = new ProxyMetrics(registry);
        metrics.bindRoutingTable(watcher);
        this.routingMode = new RoutingMode(watcher);
        metrics.bindRoutingMode(routingMode);
        NettyTransport transport = NettyTransport.preferred();
        LOG.info("Kafka listener and broker connections use the {} transport", transport);
        this.bossGroup = new MultiThreadIoEventLoopGroup(1, transport.ioHandlerFactory());
        this.workerGroup = new MultiThreadIoEventLoopGroup(0, transport.ioHandlerFactory());
        List<ReloadingTls> reloading = Stream.of(tls.listener(), tls.backends()).filter(Objects::nonNull).toList();
        CertificateExpiryMetrics expiryMetrics = new CertificateExpiryMetrics(registry);
        reloading.forEach(r -> expiryMetrics.track(r::expiries));
        expiryMetrics.track(tls::etcdExpiries);
        reloading.forEach(r -> r.reloadWith(mountedFiles));
        ProxyConfig.Backends backends = config.backends();
        this.brokerNames = BrokerNameResolution.ofThisHost(backends.connectTimeout(), new BrokerNameResolution.Ttls(
                backends.dns().minTtl(), backends.dns().maxTtl(), backends.dns().negativeTtl()),
                metrics::backendDnsLookupFailed);
        ByteBufAllocator brokerReadBuffers = SocketTuning.brokerBuffers(PlatformDependent.maxDirectMemory());
        metrics.bindBrokerReadBuffers(brokerReadBuffers);
        BackendListener backendMetrics = new BackendListener() {
            @Override
            public void connectionOpened() {
                metrics.backendConnectionOpened();
            }

            @Override
            public void connectionClosed() {
                metrics.backendConnectionClosed();
            }

            @Override
            public void authenticationFailed() {
                metrics.backendAuthenticationFailed();
            }

            @Override
            public void answered(int brokerId, ApiKeys api, long nanos) {
                metrics.brokerAnswered(brokerId, api, nanos);
            }
        };
        BackendConnector.Settings connections = new BackendConnector.Settings(backends.connectTimeout(),
                backends.requestTimeout(), backends.controlRequestTimeout(), backends.maxResponseBytes());
        BackendConnector connector = BackendConnector.builder(connections, backendMetrics)
                .tls(tls.backends() == null ? null : tls.backends()::context)
                .names(brokerNames)
                .login(brokerLogin(backends, brokerCredentials))
                .buffers(brokerReadBuffers)
                .build();
        this.control = connector.openSession(workerGroup.next(), new BackendListener() { });
        List<BrokerAddress> bootstrap = backends.bootstrap().stream()
                .map(hp -> new BrokerAddress(-1, hp.host(), hp.port(), null)).toList();
        OwnerLookup router = new OwnerLookup(watcher, bootstrap);
        ProxyConfig.Routing routing = config.routing();
        this.presentation = presentation(config, router, metrics);
        ByteBufAllocator alloc = ByteBufAllocator.DEFAULT;
        Authorizer authorizer = Authorizer.open();
        if (acls != null) {
            AuthorizationMetrics authorizationMetrics = new AuthorizationMetrics(registry);
            acls.reloadWith(mountedFiles, authorizationMetrics);
            authorizer = new AclAuthorizer(acls::current, authorizationMetrics);
        }
        ProxyConfig.Limits limits = config.limits();
        MemoryBudget budget = new MemoryBudget(limits.memoryBudget() != null ? limits.memoryBudget()
                : MemoryBudget.defaultLimit(PlatformDependent.maxDirectMemory()));
        AuditLog auditLog = AuditLog.none();
        RequestAuditing auditing = RequestAuditing.off();
        if (auditOut != null) {
            AuditMetrics auditMetrics = new AuditMetrics(registry);
            this.auditWriter = new AuditFileWriter(auditOut, AUDIT_QUEUE_CAPACITY, auditMetrics.written(),
                    auditMetrics.dropped());
            auditLog = auditWriter;
            auditing = new RequestAuditing(auditWriter, config.audit().allowedReads()
                    ? new AllowedAccessSampler(AUDIT_ALLOWED_INTERVAL.toNanos(), AUDIT_ALLOWED_REMEMBERED,
                            System::nanoTime) : null, Clock.systemUTC());
        } else {
            this.auditWriter = null;
        }
        AuthenticationAudit authenticationAudit = new AuthenticationAudit(auditLog, Clock.systemUTC());
        RequestDispatcher requests = new RequestDispatcher(router, control, alloc, presentation, metrics,
                new RequestDispatcher.Settings(routing.metadataMaxAge(), routing.retryInitialBackoff(),
                        routing.retryMaxBackoff(), backends.requestTimeout(),
                        config.presentation().produceOwnerDeadline()), authorizer,
                // Through one node a client has one fetch in flight for all owners: reads ahead give back the rest.
                config.presentation().mode() == ProxyConfig.PresentationMode.SINGLE_NODE ? budget : null, auditing,
                new AccessRules());
        RequestHandler served = requests;
        if (quotas != null) {
            QuotaMetrics quotaMetrics = new QuotaMetrics(registry);
            quotas.reloadWith(mountedFiles, quotaMetrics);
            quotaMetrics.bindTierProxies(this::liveProxies);
            served = new ClientQuotaApis(new QuotaEnforcement(requests, new ClientQuotas(quotas::current,
                    new TierShare(this::liveProxies), System::nanoTime, quotaMetrics,
                    new QuotaWindow(config.quotas().windowCount(), config.quotas().windowSize()))),
                    quotas::current, quotas.path(), requests);
        }
        SaslGate sasl = !config.saslRequired() ? null : new SaslGate(served, new SaslSettings(
                config.sasl().mechanisms(), users, oauthBearer(config.sasl().oauthbearer(), tokenKeys),
                config.sasl().connectionsMaxReauth()), new AuthenticationMetrics(registry), authenticationAudit);
        RequestHandler handler = sasl != null ? sasl : served;
        this.reachability = new BackendReachability(control, router, alloc);
        LOG.info("Memory budget {} MiB (direct memory limit {} MiB): client reading pauses while it is used up",
                budget.limit() >> 20, PlatformDependent.maxDirectMemory() >> 20);
        metrics.bindMemoryBudget(budget);
        ProxyConfig.Listener listener = config.listener();
        this.frontend = FrontendServer.builder(listener.host(), listener.port(), bossGroup, workerGroup, handler,
                        connector, metrics, limits)
                .nodePorts(nodePorts(config))
                .tls(listenerTls(tls))
                .budget(budget)
                .certificatePrincipals(listener.tlsClientAuth() == ProxyConfig.ClientAuth.NONE ? null
                        : new ClientCertificatePrincipals(listener.tlsPrincipal()))
                .authenticationAudit(authenticationAudit)
                .frameCap(sasl != null ? sasl.frameCap() : FrameCap.NONE)
                .build();
        this.heartbeat = new EventLoopHeartbeat(workerGroup, HEARTBEAT_INTERVAL, EVENT_LOOP_STUCK_AFTER);
        this.admin = new AdminServer(config.admin().host(), config.admin().port(),
                config.admin().routes() == ProxyConfig.RoutesAccess.OPEN,
                new RoutingHealthProbe(watcher, routingMode, routing.staleRoutesUnreadyAfter(), reachability::isReachable,
                        () -> draining, heartbeat::allResponsive),
                watcher, registry);
    }

    /**
     * How new broker connections log in, {@code null} without {@code backends.sasl}. PLAIN over
     * plaintext is allowed, as Kafka allows SASL_PLAINTEXT, but said once at start.
     */
    private BrokerLogin brokerLogin(ProxyConfig.Backends backends, BrokerCredentials credentials) {
        ProxyConfig.BackendSasl sasl = backends.sasl();
        if (sasl == null) {
            return null;
        }
        credentials.reloadWith(mountedFiles);
        if (sasl.mechanism().equals("PLAIN") && backends.tls() == null) {
            LOG.warn("backends.sasl uses PLAIN without backends.tls: the broker password crosses the network in "
                    + "clear text; enable backends.tls or use a SCRAM mechanism outside a trusted network");
        }
        LOG.info("Broker connections log in as {} with {}", sasl.username(), sasl.mechanism());
        return new BrokerLogin(sasl.mechanism(), credentials, ByteBufAllocator.DEFAULT);
    }

    /** What OAUTHBEARER tokens must satisfy, {@code null} without OAUTHBEARER. */
    private static OAuthBearerSettings oauthBearer(ProxyConfig.OAuthBearer config, VerificationKeys keys) {
        return config == null ? null : new OAuthBearerSettings(keys, config.issuer(), config.audience(),
                config.principalClaim(), config.clockSkew());
    }

    /** The presentation the config asks for; node-per-owner also publishes the brokers it has no node for. */
    private static ClusterPresentation presentation(ProxyConfig config, OwnerLookup router, ProxyMetrics metrics) {
        ProxyConfig.Listener listener = config.listener();
        ProxyConfig.Presentation shown = config.presentation();
        if (shown.mode() == ProxyConfig.PresentationMode.SINGLE_NODE) {
            return ClusterPresentation.singleNode(ProxyIdentity.advertised(listener.advertisedHost(),
                    listener.advertisedPort()));
        }
        NodeAddresses addresses = new NodeAddresses(listener.advertisedHost(), listener.advertisedPort(),
                shown.nodeHostPattern(), shown.nodePortBase(), shown.firstNodeId(), shown.nodeCount());
        metrics.bindBrokersWithoutNode(router.routes(), addresses::covers);
        return ClusterPresentation.nodePerOwner(router, addresses);
    }

    /** The node ports to listen on: one per node of the range when the presentation has a port range. */
    private static List<FrontendServer.NodePort> nodePorts(ProxyConfig config) {
        ProxyConfig.Presentation shown = config.presentation();
        if (!shown.hasNodePorts()) {
            return List.of();
        }
        List<FrontendServer.NodePort> ports = new ArrayList<>();
        for (int i = 0; i < shown.nodeCount(); i++) {
            ports.add(new FrontendServer.NodePort("node-" + (shown.firstNodeId() + i), shown.nodePortBase() + i));
        }
        return ports;
    }

    /** The listener's current context for each new client connection, {@code null} for a plaintext listener. */
    private static Supplier<SslContext> listenerTls(ProxyTls tls) {
        return tls.listener() == null ? null : tls.listener()::context;
    }

    /**
     * Opens the admin endpoints (so probes and metrics show a proxy that is still loading), waits
     * for the routing snapshot (at most {@code routing.initialLoadTimeout}), then listens. If the
     * snapshot has not loaded by then, it fails, or with {@code routing.startWithoutEtcd} listens
     * anyway and routes on the bootstrap brokers until the snapshot loads.
     *
     * @return the bound Kafka listener address
     */
    public InetSocketAddress start() throws InterruptedException {
        admin.start();
        Duration loadTimeout = config.routing().initialLoadTimeout();
        if (!watcher.awaitLoaded(loadTimeout)) {
            String notLoaded = "routing snapshot not loaded from etcd " + config.etcd().endpoints() + " within "
                    + loadTimeout.toMillis() + " ms (routing.initialLoadTimeout)";
            if (!config.routing().startWithoutEtcd()) {
                throw new IllegalStateException(notLoaded);
            }
            routingMode.serveWithoutSnapshot();
            LOG.warn("{}: serving anyway (routing.startWithoutEtcd), on backends.bootstrap {} with the hash fallback "
                    + "until it loads; the brokers reject writes they do not own, and those are retried", notLoaded,
                    config.backends().bootstrap());
            watcher.whenLoaded().thenRun(() -> LOG.info("routing snapshot loaded from etcd: routing by partition and "
                    + "group owner now, no longer on backends.bootstrap"));
        }
        reachability.start(PROBE_INTERVAL);
        boundAddress = frontend.start();
        if (config.quotas().enabled()) {
            String proxyId = Objects.requireNonNullElseGet(config.quotas().proxyId(),
                    () -> hostName() + ":" + boundAddress.getPort());
            tier = ProxyRegistry.start(etcd, new KeySchema(config.etcd().prefix()), proxyId, TIER_LEASE_TTL,
                    TIER_COUNT_INTERVAL);
            LOG.info("Quotas from {}, enforced as this proxy's share of the tier's; registered in etcd as {}",
                    config.quotas().file(), proxyId);
        }
        if (config.presentation().mode() == ProxyConfig.PresentationMode.NODE_PER_OWNER) {
            ProxyConfig.Presentation shown = config.presentation();
            LOG.info("Presenting one node per broker, ids {}..{}{}; nodes now: {}", shown.firstNodeId(),
                    shown.firstNodeId() + shown.nodeCount() - 1, shown.hasNodePorts() ? ", on ports "
                            + shown.nodePortBase() + ".." + (shown.nodePortBase() + shown.nodeCount() - 1) : "",
                    presentation.nodes());
        }
        LOG.info("Leasehold proxy listening on {} ({}, advertised {}:{}), admin on port {}", boundAddress,
                (config.authorizes() ? "ACLs from " + config.authorization().aclsFile() + ", " : "")
                        + (config.saslRequired() ? "SASL " + config.sasl().mechanisms() + " over " : "")
                        + (config.listener().tls() ? "TLS" : "plaintext"), config.listener().advertisedHost(),
                config.listener().advertisedPort(), admin.port());
        return boundAddress;
    }

    /** The live proxies a quota is divided by: one, this proxy, until the tier has been counted. */
    private int liveProxies() {
        ProxyRegistry registered = tier;
        return registered == null ? 1 : registered.liveProxies();
    }

    /** This host's name (a pod's name in Kubernetes), for the default proxy id. */
    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }

    /**
     * Graceful stop: readiness turns false, no new connections, each client connection stops
     * reading and closes once the requests it has read are answered, all within
     * {@code shutdown.drainTimeout}; then everything closes.
     *
     * @return true if every connection finished in time, false if the timeout cut some off
     */
    public boolean drainAndClose() throws InterruptedException {
        draining = true;
        boolean drained = frontend.drain(config.shutdown().drainTimeout());
        close();
        return drained;
    }

    @Override
    public void close() {
        frontend.close();
        if (tier != null) {
            tier.close();
        }
        if (auditWriter != null) {
            auditWriter.close();
        }
        mountedFiles.close();
        if (tokenKeys != null) {
            tokenKeys.close();
        }
        admin.close();
        heartbeat.close();
        reachability.close();
        control.close();
        workerGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        bossGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        brokerNames.close();
        watcher.close();
        etcd.close();
    }
}
