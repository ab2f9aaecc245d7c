package io.leasehold.proxy.frontend;

import io.leasehold.proxy.admin.ProxyMetrics;
import io.leasehold.proxy.backend.BackendConnector;
import io.leasehold.proxy.transport.NettyTransport;
import io.leasehold.proxy.logging.WarningRateLimiter;
import io.leasehold.proxy.transport.SocketTuning;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.leasehold.proxy.protocol.FrameCap;
import io.leasehold.proxy.protocol.KafkaFrameDecoder;
import io.leasehold.proxy.tls.ClientCertificatePrincipals;
import io.netty.handler.codec.LengthFieldPrepender;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client-facing Kafka listener: optional TLS, framing with a size limit, connection slots
 * (in all and per client address), one {@link ClientConnectionHandler} per connection, and a
 * per-connection drain for graceful shutdown. Besides the bootstrap port it may listen on one
 * port per presented node ({@link NodePort}); a connection is served the same whichever port it
 * arrived on, and only the connection counter by port tells them apart.
 */
public final class FrontendServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FrontendServer.class);
    /** After a drain timed out, how long closing the remaining connections may take. */
    private static final Duration FORCED_CLOSE_WAIT = Duration.ofSeconds(2);
    /**
     * Listener limits, all from configuration. A TLS client must finish its handshake within
     * {@code tlsHandshakeTimeout}, and every client must send its first complete request within
     * {@code firstRequestTimeout} and complete each frame within {@code frameCompletionTimeout},
     * so connections that never do cannot pile up; one client address holds at most
     * {@code maxConnectionsPerIp} of the {@code maxConnections} slots. At most
     * {@code acceptsPerSecond} connections are taken on per second, and on a TLS listener at
     * most {@code tlsHandshakesPerSecond} of them start a handshake; connects beyond either are
     * closed at once. One request names at most {@code maxPartitionsPerRequest} partitions, one
     * Metadata request at most {@code maxTopicsPerMetadataRequest} topics. One connection starts
     * at most {@code requestsPerSecondPerConnection} requests a second; further ones wait, and
     * the connection is not read meanwhile.
     */
    public record Limits(int maxFrameBytes, int maxConnections, Duration idleTimeout, int maxInFlightPerConnection,
                         Duration tlsHandshakeTimeout, int maxConnectionsPerIp, Duration firstRequestTimeout,
                         Duration frameCompletionTimeout, int acceptsPerSecond, int tlsHandshakesPerSecond,
                         int maxPartitionsPerRequest, int maxTopicsPerMetadataRequest,
                         int requestsPerSecondPerConnection) {

        /** Limits without a request rate per connection. */
        public Limits(int maxFrameBytes, int maxConnections, Duration idleTimeout, int maxInFlightPerConnection,
                      Duration tlsHandshakeTimeout, int maxConnectionsPerIp, Duration firstRequestTimeout,
                      Duration frameCompletionTimeout, int acceptsPerSecond, int tlsHandshakesPerSecond,
                      int maxPartitionsPerRequest, int maxTopicsPerMetadataRequest) {
            this(maxFrameBytes, maxConnections, idleTimeout, maxInFlightPerConnection, tlsHandshakeTimeout,
                    maxConnectionsPerIp, firstRequestTimeout, frameCompletionTimeout, acceptsPerSecond,
                    tlsHandshakesPerSecond, maxPartitionsPerRequest, maxTopicsPerMetadataRequest, Integer.MAX_VALUE);
        }

        /** Limits without rate limits or request bounds beyond the frame size. */
        public Limits(int maxFrameBytes, int maxConnections, Duration idleTimeout, int maxInFlightPerConnection,
                      Duration tlsHandshakeTimeout, int maxConnectionsPerIp, Duration firstRequestTimeout,
                      Duration frameCompletionTimeout) {
            this(maxFrameBytes, maxConnections, idleTimeout, maxInFlightPerConnection, tlsHandshakeTimeout,
                    maxConnectionsPerIp, firstRequestTimeout, frameCompletionTimeout, Integer.MAX_VALUE,
                    Integer.MAX_VALUE, Integer.MAX_VALUE, Integer.MAX_VALUE, Integer.MAX_VALUE);
        }

        /** Limits without a separate per-address cap, whose first request and frames may take up to {@code idleTimeout}. */
        public Limits(int maxFrameBytes, int maxConnections, Duration idleTimeout, int maxInFlightPerConnection,
                      Duration tlsHandshakeTimeout) {
            this(maxFrameBytes, maxConnections, idleTimeout, maxInFlightPerConnection, tlsHandshakeTimeout,
                    maxConnections, idleTimeout, idleTimeout);
        }
    }

    /** The name bootstrap-port connections are counted under. */
    public static final String BOOTSTRAP = "bootstrap";

    /** A further port to listen on, counted under {@code listener} (e.g. "node-3"). */
    public record NodePort(String listener, int port) {
    }

    private final String host;
    private final int port;
    private final List<NodePort> nodePorts;
    private final EventLoopGroup bossGroup;
    private final EventLoopGroup workerGroup;
    private final RequestHandler router;
    private final BackendConnector connector;
    private final ProxyMetrics metrics;
    private final Limits limits;
    private final Supplier<SslContext> tls;
    private final ChannelGroup clients = new DefaultChannelGroup("clients", GlobalEventExecutor.INSTANCE);
    private final ConnectionSlots slots;
    /** One warning line per reason and client address per second; shared by all connections. */
    private final WarningRateLimiter warnings;
    /**
     * One line per reason and client address per minute for refused connects: a refused client
     * reconnects after its backoff, every time, for as long as it stays over the limit.
     */
    private final WarningRateLimiter refusals = new WarningRateLimiter(60_000, System::nanoTime);
    private final ActiveRequests active = new ActiveRequests();
    private final List<Channel> serverChannels = new ArrayList<>();
    private final MemoryBudget budget;
    private final ClientSecurity security;
    private final TokenBucket accepts;
    private final TokenBucket handshakes;

    /** A plaintext listener. */
    public FrontendServer(String host, int port, EventLoopGroup bossGroup, EventLoopGroup workerGroup,
                          RequestHandler router, BackendConnector connector, ProxyMetrics metrics, Limits limits) {
        this(host, port, bossGroup, workerGroup, router, connector, metrics, limits, (SslContext) null);
    }

    /**
     * A listener on the bootstrap port only, with one TLS context for its life and a memory budget
     * that never pauses reading (tests of other limits).
     *
     * @param tls the server TLS context every client connection starts with; {@code null} for a
     *            plaintext listener
     */
    public FrontendServer(String host, int port, EventLoopGroup bossGroup, EventLoopGroup workerGroup,
                          RequestHandler router, BackendConnector connector, ProxyMetrics metrics, Limits limits,
                          SslContext tls) {
        this(host, port, bossGroup, workerGroup, router, connector, metrics, limits, tls, new MemoryBudget(Long.MAX_VALUE));
    }

    /**
     * A listener on the bootstrap port only, with one TLS context for its life.
     *
     * @param budget the proxy-wide memory budget; while it is exhausted no client connection reads
     */
    public FrontendServer(String host, int port, EventLoopGroup bossGroup, EventLoopGroup workerGroup,
                          RequestHandler router, BackendConnector connector, ProxyMetrics metrics, Limits limits,
                          SslContext tls, MemoryBudget budget) {
        this(host, port, List.of(), bossGroup, workerGroup, router, connector, metrics, limits,
                tls == null ? null : () -> tls, budget);
    }

    /** A listener that names no principal from certificates and caps frames only by {@code limits}. */
    public FrontendServer(String host, int port, List<NodePort> nodePorts, EventLoopGroup bossGroup,
                          EventLoopGroup workerGroup, RequestHandler router, BackendConnector connector,
                          ProxyMetrics metrics, Limits limits, Supplier<SslContext> tls, MemoryBudget budget) {
        this(host, port, nodePorts, bossGroup, workerGroup, router, connector, metrics, limits, tls, budget,
                new ClientSecurity(null, FrameCap.NONE));
    }

    /**
     * How the listener names and limits clients beyond TLS itself.
     *
     * @param certificatePrincipals names the principal of a client that presented a verified
     *                              certificate; {@code null} where the listener verifies none
     * @param frameCap              a lower frame limit for a while, checked on each length prefix
     *                              (before SASL authentication)
     */
    public record ClientSecurity(ClientCertificatePrincipals certificatePrincipals, FrameCap frameCap) {
    }

    /**
     * @param nodePorts further ports served exactly like {@code port}, all on {@code host}
     * @param tls       the server TLS context for the next client connection, asked once per connection
     *                  (it changes when the certificate files are reloaded; open connections keep theirs);
     *                  {@code null} for a plaintext listener
     * @param budget    the proxy-wide memory budget; while it is exhausted no client connection reads
     * @param security  client certificate principals and the pre-authentication frame cap
     */
    public FrontendServer(String host, int port, List<NodePort> nodePorts, EventLoopGroup bossGroup,
                          EventLoopGroup workerGroup, RequestHandler router, BackendConnector connector,
                          ProxyMetrics metrics, Limits limits, Supplier<SslContext> tls, MemoryBudget budget,
                          ClientSecurity security) {
        this.security = security;
        this.host = host;
        this.port = port;
        this.nodePorts = List.copyOf(nodePorts);
        this.bossGroup = bossGroup;
        this.workerGroup = workerGroup;
        this.router = router;
        this.connector = connector;
        this.metrics = metrics;
        this.limits = limits;
        this.tls = tls;
        this.slots = new ConnectionSlots(limits.maxConnections(), limits.maxConnectionsPerIp());
        this.warnings = WarningRateLimiter.perSecond();
        this.budget = budget;
        this.accepts = new TokenBucket(limits.acceptsPerSecond(), System::nanoTime);
        this.handshakes = new TokenBucket(limits.tlsHandshakesPerSecond(), System::nanoTime);
        budget.addListener(exhausted -> clients.forEach(
                ch -> ch.pipeline().fireUserEventTriggered(ClientConnectionHandler.BUDGET_CHANGED)));
    }

    /**
     * Binds the bootstrap port, then every node port; returns the bootstrap port's bound address
     * (port 0 picks a free port). If a port cannot be bound, the ones already bound are closed.
     */
    public InetSocketAddress start() throws InterruptedException {
        boolean started = false;
        try {
            Channel bootstrap = bind(BOOTSTRAP, port);
            for (NodePort node : nodePorts) {
                bind(node.listener(), node.port());
            }
            started = true;
            return (InetSocketAddress) bootstrap.localAddress();
        } finally {
            // Netty rethrows a failed bind's BindException unchecked: whatever failed, close what did bind.
            if (!started) {
                closeListeners();
            }
        }
    }

    private Channel bind(String listener, int listenPort) throws InterruptedException {
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(bossGroup, workerGroup)
                .channel(NettyTransport.serverChannelFor(bossGroup))
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, SocketTuning.WRITES)
                .childOption(ChannelOption.RCVBUF_ALLOCATOR, SocketTuning.READS)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (!admit(ch)) {
                            return;
                        }
                        metrics.listenerConnectionAccepted(listener);
                        clients.add(ch);
                        if (tls != null) {
                            // First in the pipeline: the limits below see the decrypted frames.
                            SslHandler ssl = tls.get().newHandler(ch.alloc());
                            ssl.setHandshakeTimeout(limits.tlsHandshakeTimeout().toMillis(), TimeUnit.MILLISECONDS);
                            ch.pipeline().addLast(ssl, new TlsHandshakeGuard(metrics, warnings));
                            if (security.certificatePrincipals() != null) {
                                ch.pipeline().addLast(new CertificatePrincipalHandler(
                                        security.certificatePrincipals(), metrics, warnings));
                            }
                        }
                        // Below the prepender: streamed responses carry the broker's own length prefix.
                        ChunkedWriteHandler streamWriter = new ChunkedWriteHandler();
                        KafkaFrameDecoder frames = new KafkaFrameDecoder(limits.maxFrameBytes(), security.frameCap());
                        ch.pipeline().addLast(
                                streamWriter,
                                frames,
                                new LengthFieldPrepender(4),
                                new ClientConnectionHandler(router, connector, metrics, limits, active, streamWriter,
                                        frames, warnings, budget));
                    }
                });
        Channel channel = bootstrap.bind(host, listenPort).sync().channel();
        synchronized (serverChannels) {
            serverChannels.add(channel);
        }
        return channel;
    }

    /** Stops accepting on every port. */
    private void closeListeners() {
        List<Channel> listening;
        synchronized (serverChannels) {
            listening = new ArrayList<>(serverChannels);
            serverChannels.clear();
        }
        for (Channel channel : listening) {
            channel.close().syncUninterruptibly();
        }
    }

    /**
     * Lets {@code ch} in if the accept rate (and on a TLS listener the handshake rate) allows
     * and a connection slot is free, given back when it closes; closes it otherwise.
     */
    private boolean admit(SocketChannel ch) {
        if (!accepts.tryAcquire()) {
            return refuse(ch, "accept_rate", "limits.acceptsPerSecond");
        }
        if (tls != null && !handshakes.tryAcquire()) {
            return refuse(ch, "tls_handshake_rate", "limits.tlsHandshakesPerSecond");
        }
        InetAddress address = ch.remoteAddress().getAddress();
        ConnectionSlots.Refusal refusal = slots.tryAcquire(address);
        if (refusal != null) {
            return refuse(ch, refusal.tag(), refusal.limitKey());
        }
        ch.closeFuture().addListener(closed -> slots.release(address));
        return true;
    }

    private boolean refuse(SocketChannel ch, String reason, String limitKey) {
        metrics.connectionRefused(reason);
        refusals.warn(LOG, reason, ch.remoteAddress(), "Refusing client {}: {} reached", ch.remoteAddress(), limitKey);
        ch.close();
        return false;
    }

    /** Client connections currently open. */
    public int connectionCount() {
        return clients.size();
    }

    /**
     * Graceful stop: no new connections; every client connection stops reading, finishes the
     * requests it has read and closes; then work the clients get no answer for (acks=0 produce)
     * finishes. All of it bounded by {@code timeout}: connections still busy then are closed, the
     * timeout is counted, and the result is false.
     */
    public boolean drain(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        closeListeners();
        List<Channel> open = new ArrayList<>(clients);
        CountDownLatch closed = new CountDownLatch(open.size());
        for (Channel ch : open) {
            ch.closeFuture().addListener(done -> closed.countDown());
            ch.pipeline().fireUserEventTriggered(ClientConnectionHandler.DRAIN);
        }
        boolean drained = closed.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)
                && active.awaitIdle(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        if (!drained) {
            metrics.drainTimedOut();
            LOG.warn("Drain timeout {} passed: closing {} client connections with {} requests in progress",
                    timeout, clients.size(), active.count());
            clients.close().awaitUninterruptibly(FORCED_CLOSE_WAIT.toMillis());
        }
        return drained;
    }

    @Override
    public void close() {
        closeListeners();
        clients.close().syncUninterruptibly();
    }
}
