package io.leasehold.proxy.frontend;

import io.leasehold.proxy.admin.ProxyMetrics;
import io.leasehold.proxy.backend.BackendConnector;
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
import io.leasehold.proxy.protocol.KafkaFrameDecoder;
import io.netty.handler.codec.LengthFieldPrepender;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client-facing Kafka listener: optional TLS, framing with a size limit, idle and connection
 * limits, one {@link ClientConnectionHandler} per connection, and a drain for graceful shutdown.
 */
public final class FrontendServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FrontendServer.class);
    /**
     * Listener limits, all from configuration. A TLS client must finish its handshake within
     * {@code tlsHandshakeTimeout}, so connections that never do cannot pile up.
     */
    public record Limits(int maxFrameBytes, int maxConnections, Duration idleTimeout, int maxInFlightPerConnection,
                         Duration tlsHandshakeTimeout) {
    }

    private final String host;
    private final int port;
    private final EventLoopGroup bossGroup;
    private final EventLoopGroup workerGroup;
    private final RequestHandler router;
    private final BackendConnector connector;
    private final ProxyMetrics metrics;
    private final Limits limits;
    private final SslContext tls;
    private final ChannelGroup clients = new DefaultChannelGroup("clients", GlobalEventExecutor.INSTANCE);
    private final ActiveRequests active = new ActiveRequests();
    private Channel serverChannel;

    /** A plaintext listener. */
    public FrontendServer(String host, int port, EventLoopGroup bossGroup, EventLoopGroup workerGroup,
                          RequestHandler router, BackendConnector connector, ProxyMetrics metrics, Limits limits) {
        this(host, port, bossGroup, workerGroup, router, connector, metrics, limits, null);
    }

    /**
     * @param tls the server TLS context every client connection starts with, built once at
     *            start-up; {@code null} for a plaintext listener
     */
    public FrontendServer(String host, int port, EventLoopGroup bossGroup, EventLoopGroup workerGroup,
                          RequestHandler router, BackendConnector connector, ProxyMetrics metrics, Limits limits,
                          SslContext tls) {
        this.host = host;
        this.port = port;
        this.bossGroup = bossGroup;
        this.workerGroup = workerGroup;
        this.router = router;
        this.connector = connector;
        this.metrics = metrics;
        this.limits = limits;
        this.tls = tls;
    }

    /** Binds the listener; returns the bound address (port 0 picks a free port). */
    public InetSocketAddress start() throws InterruptedException {
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(bossGroup, workerGroup)
                .channel(NettyTransport.serverChannelFor(bossGroup))
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, SocketTuning.WRITES)
                .childOption(ChannelOption.RCVBUF_ALLOCATOR, SocketTuning.READS)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (clients.size() >= limits.maxConnections()) {
                            metrics.connectionRefused("max_connections");
                            LOG.warn("Refusing client {}: {} connections already open (limits.maxConnections)",
                                    ch.remoteAddress(), clients.size());
                            ch.close();
                            return;
                        }
                        clients.add(ch);
                        if (tls != null) {
                            // First in the pipeline: the limits below see the decrypted frames.
                            SslHandler ssl = tls.newHandler(ch.alloc());
                            ssl.setHandshakeTimeout(limits.tlsHandshakeTimeout().toMillis(), TimeUnit.MILLISECONDS);
                            ch.pipeline().addLast(ssl, new TlsHandshakeGuard(metrics));
                        }
                        long idle = limits.idleTimeout().toMillis();
                        // Below the prepender: streamed responses carry the broker's own length prefix.
                        ChunkedWriteHandler streamWriter = new ChunkedWriteHandler();
                        ch.pipeline().addLast(
                                new IdleStateHandler(0, 0, idle, TimeUnit.MILLISECONDS),
                                streamWriter,
                                new KafkaFrameDecoder(limits.maxFrameBytes()),
                                new LengthFieldPrepender(4),
                                new ClientConnectionHandler(router, connector, metrics,
                                        limits.maxInFlightPerConnection(), active, streamWriter));
                    }
                });
        serverChannel = bootstrap.bind(host, port).sync().channel();
        return (InetSocketAddress) serverChannel.localAddress();
    }

    /** Client connections currently open. */
    public int connectionCount() {
        return clients.size();
    }

    /**
     * Graceful stop: no new connections, in-flight requests finish (bounded by {@code timeout}),
     * then every client connection is closed. Returns true if everything finished in time.
     */
    public boolean drain(Duration timeout) throws InterruptedException {
        if (serverChannel != null) {
            serverChannel.close().sync();
        }
        boolean drained = active.awaitIdle(timeout);
        clients.close().awaitUninterruptibly(timeout.toMillis());
        return drained;
    }

    @Override
    public void close() {
        if (serverChannel != null) {
            serverChannel.close().syncUninterruptibly();
        }
        clients.close().syncUninterruptibly();
    }
}
