package io.leasehold.proxy.frontend;

import io.leasehold.proxy.audit.AuthenticationAudit;
import io.leasehold.proxy.backend.BackendConnector;
import io.leasehold.proxy.config.ProxyConfig;
import io.leasehold.proxy.logging.WarningRateLimiter;
import io.leasehold.proxy.protocol.FrameCap;
import io.leasehold.proxy.protocol.KafkaFrameDecoder;
import io.leasehold.proxy.request.ActiveRequests;
import io.leasehold.proxy.request.MemoryBudget;
import io.leasehold.proxy.request.RequestHandler;
import io.leasehold.proxy.tls.ClientCertificatePrincipals;
import io.leasehold.proxy.transport.NettyTransport;
import io.leasehold.proxy.transport.SocketTuning;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
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
    private final FrontendListener listener;
    private final ProxyConfig.Limits limits;
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
    private final ClientCertificatePrincipals certificatePrincipals;
    private final AuthenticationAudit authenticationAudit;
    private final FrameCap frameCap;
    private final TokenBucket accepts;
    private final TokenBucket handshakes;

    /**
     * A listener on {@code host}:{@code port} (port 0 picks a free port) whose connections run on
     * {@code workerGroup}, accepted on {@code bossGroup}, have their requests handled by
     * {@code router} (which reaches brokers through {@code connector}), are reported to
     * {@code listener} and held to {@code limits} (all but {@code memoryBudget}: the proxy-wide
     * budget is handed to the builder). Unless the builder says otherwise it listens on no node
     * port, in plaintext, under a memory budget that never pauses reading, names no principal from
     * certificates, and caps frames only by {@code limits}.
     */
    public static Builder builder(String host, int port, EventLoopGroup bossGroup, EventLoopGroup workerGroup,
                                  RequestHandler router, BackendConnector connector, FrontendListener listener,
                                  ProxyConfig.Limits limits) {
        return new Builder(host, port, bossGroup, workerGroup, router, connector, listener, limits);
    }

    private FrontendServer(Builder parts) {
        this.host = parts.host;
        this.port = parts.port;
        this.nodePorts = parts.nodePorts;
        this.bossGroup = parts.bossGroup;
        this.workerGroup = parts.workerGroup;
        this.router = parts.router;
        this.connector = parts.connector;
        this.listener = parts.listener;
        this.limits = parts.limits;
        this.tls = parts.tls;
        this.budget = parts.budget;
        this.certificatePrincipals = parts.certificatePrincipals;
        this.authenticationAudit = parts.authenticationAudit;
        this.frameCap = parts.frameCap;
        this.slots = new ConnectionSlots(limits.maxConnections(), limits.maxConnectionsPerIp());
        this.warnings = WarningRateLimiter.perSecond();
        this.accepts = new TokenBucket(limits.acceptsPerSecond(), System::nanoTime);
        this.handshakes = new TokenBucket(limits.tlsHandshakesPerSecond(), System::nanoTime);
        budget.addListener(exhausted -> clients.forEach(
                ch -> ch.pipeline().fireUserEventTriggered(ClientConnectionHandler.BUDGET_CHANGED)));
    }

    /** The optional parts of a {@link FrontendServer}; see {@link FrontendServer#builder}. */
    public static final class Builder {
        private final String host;
        private final int port;
        private final EventLoopGroup bossGroup;
        private final EventLoopGroup workerGroup;
        private final RequestHandler router;
        private final BackendConnector connector;
        private final FrontendListener listener;
        private final ProxyConfig.Limits limits;
        private List<NodePort> nodePorts = List.of();
        private Supplier<SslContext> tls;
        private MemoryBudget budget = new MemoryBudget(Long.MAX_VALUE);
        private ClientCertificatePrincipals certificatePrincipals;
        private AuthenticationAudit authenticationAudit = AuthenticationAudit.off();
        private FrameCap frameCap = FrameCap.NONE;

        private Builder(String host, int port, EventLoopGroup bossGroup, EventLoopGroup workerGroup,
                        RequestHandler router, BackendConnector connector, FrontendListener listener,
                        ProxyConfig.Limits limits) {
            this.host = host;
            this.port = port;
            this.bossGroup = bossGroup;
            this.workerGroup = workerGroup;
            this.router = router;
            this.connector = connector;
            this.listener = listener;
            this.limits = limits;
        }

        /** Further ports served exactly like the bootstrap port, all on the same host. */
        public Builder nodePorts(List<NodePort> nodePorts) {
            this.nodePorts = List.copyOf(nodePorts);
            return this;
        }

        /**
         * The server TLS context for the next client connection, asked once per connection (it
         * changes when the certificate files are reloaded; open connections keep theirs);
         * {@code null} for a plaintext listener.
         */
        public Builder tls(Supplier<SslContext> tls) {
            this.tls = tls;
            return this;
        }

        /** The proxy-wide memory budget; while it is exhausted no client connection reads. */
        public Builder budget(MemoryBudget budget) {
            this.budget = budget;
            return this;
        }

        /**
         * Names the principal of a client that presented a verified certificate; {@code null}
         * where the listener verifies none.
         */
        public Builder certificatePrincipals(ClientCertificatePrincipals certificatePrincipals) {
            this.certificatePrincipals = certificatePrincipals;
            return this;
        }

        /** Where client certificates accepted and refused are reported for the audit log. */
        public Builder authenticationAudit(AuthenticationAudit authenticationAudit) {
            this.authenticationAudit = authenticationAudit;
            return this;
        }

        /** A lower frame limit for a while, checked on each length prefix (before SASL authentication). */
        public Builder frameCap(FrameCap frameCap) {
            this.frameCap = frameCap;
            return this;
        }

        public FrontendServer build() {
            return new FrontendServer(this);
        }
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

    private Channel bind(String portName, int listenPort) throws InterruptedException {
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
                        listener.listenerConnectionAccepted(portName);
                        clients.add(ch);
                        if (tls != null) {
                            // First in the pipeline: the limits below see the decrypted frames.
                            SslHandler ssl = tls.get().newHandler(ch.alloc());
                            ssl.setHandshakeTimeout(limits.tlsHandshakeTimeout().toMillis(), TimeUnit.MILLISECONDS);
                            ch.pipeline().addLast(ssl, new TlsHandshakeGuard(listener, warnings,
                                    certificatePrincipals != null ? authenticationAudit : AuthenticationAudit.off()));
                            if (certificatePrincipals != null) {
                                ch.pipeline().addLast(new CertificatePrincipalHandler(
                                        certificatePrincipals, listener, warnings, authenticationAudit));
                            }
                        }
                        // Below the prepender: streamed responses carry the broker's own length prefix.
                        ChunkedWriteHandler streamWriter = new ChunkedWriteHandler();
                        KafkaFrameDecoder frames = new KafkaFrameDecoder(limits.maxFrameBytes(), frameCap);
                        ch.pipeline().addLast(
                                streamWriter,
                                frames,
                                new LengthFieldPrepender(4),
                                new ClientConnectionHandler(router, connector, listener, limits, active, streamWriter,
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
        listener.connectionRefused(reason);
        refusals.warn(LOG, reason, ch.remoteAddress(), "Refusing client {}: {} reached", ch.remoteAddress(), limitKey);
        ch.close();
        return false;
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
            listener.drainTimedOut();
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
