package io.leasehold.proxy.backend;

import io.leasehold.proxy.transport.NettyTransport;
import io.leasehold.proxy.transport.SocketTuning;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.LengthFieldPrepender;
import java.time.Duration;

/**
 * Opens connections to brokers with the proxy's timeouts and frame limit, resolving broker host
 * names asynchronously ({@link BrokerNameResolution}). Sessions use it to
 * connect on the event loop of the client connection they serve, so a client's requests and
 * their backend traffic never cross threads.
 *
 * <p>Broker sockets use TCP keepalive, and on the epoll transport a TCP user timeout of
 * {@code requestTimeout}: a broker whose host vanished (no RST, nothing acknowledged) is then
 * noticed by the kernel even while no request is waiting on it.
 */
public final class BackendConnector {
    /** Idle time before the first keepalive probe, probe interval, and probes before giving up. */
    private static final int KEEPALIVE_IDLE_SECONDS = 15;
    private static final int KEEPALIVE_INTERVAL_SECONDS = 5;
    private static final int KEEPALIVE_PROBES = 3;

    private final Duration connectTimeout;
    private final Duration requestTimeout;
    private final Duration controlRequestTimeout;
    private final int maxResponseBytes;
    private final BackendListener metrics;
    private final BrokerNameResolution names;

    /** As the full constructor, resolving broker names with this host's name servers. */
    public BackendConnector(Duration connectTimeout, Duration requestTimeout, Duration controlRequestTimeout,
                            int maxResponseBytes, BackendListener metrics) {
        this(connectTimeout, requestTimeout, controlRequestTimeout, maxResponseBytes, metrics,
                BrokerNameResolution.ofThisHost(connectTimeout));
    }

    /**
     * @param requestTimeout        default bound on a forwarded request's answer
     * @param controlRequestTimeout bound on each broker's answer to an idempotent read before the
     *                              next broker is asked ({@link BackendSession#sendToAny})
     * @param maxResponseBytes      largest response frame accepted from a broker
     * @param metrics               told about every backend connection opened and closed
     * @param names                 resolves broker host names off the event loops' critical path
     */
    public BackendConnector(Duration connectTimeout, Duration requestTimeout, Duration controlRequestTimeout,
                            int maxResponseBytes, BackendListener metrics, BrokerNameResolution names) {
        this.connectTimeout = connectTimeout;
        this.requestTimeout = requestTimeout;
        this.controlRequestTimeout = controlRequestTimeout;
        this.maxResponseBytes = maxResponseBytes;
        this.metrics = metrics;
        this.names = names;
    }

    /** A new session whose connections live on {@code loop}. */
    public BackendSession openSession(EventLoop loop, BackendListener sessionListener) {
        return new BackendSession(this, loop, sessionListener);
    }

    Duration requestTimeout() {
        return requestTimeout;
    }

    Duration controlRequestTimeout() {
        return controlRequestTimeout;
    }

    ChannelFuture connect(EventLoop loop, String host, int port, BackendConnection connection,
                          Runnable writabilityChanged) {
        Bootstrap bootstrap = new Bootstrap()
                .group(loop)
                .channel(NettyTransport.channelFor(loop))
                // Netty's default resolver looks names up with InetAddress, blocking the event loop.
                .resolver(names.on(loop))
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) connectTimeout.toMillis())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, SocketTuning.WRITES)
                .option(ChannelOption.RCVBUF_ALLOCATOR, SocketTuning.READS)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(
                                new ResponseFramer(maxResponseBytes, connection),
                                new LengthFieldPrepender(4),
                                new WritabilityRelay(writabilityChanged),
                                connection);
                    }
                });
        if (NettyTransport.channelFor(loop) == EpollSocketChannel.class) {
            bootstrap.option(EpollChannelOption.TCP_KEEPIDLE, KEEPALIVE_IDLE_SECONDS)
                    .option(EpollChannelOption.TCP_KEEPINTVL, KEEPALIVE_INTERVAL_SECONDS)
                    .option(EpollChannelOption.TCP_KEEPCNT, KEEPALIVE_PROBES)
                    .option(EpollChannelOption.TCP_USER_TIMEOUT, (int) requestTimeout.toMillis());
        }
        ChannelFuture future = bootstrap.connect(host, port);
        connection.attach(future.channel());
        future.addListener(f -> {
            if (f.isSuccess()) {
                metrics.connectionOpened();
                future.channel().closeFuture().addListener(c -> metrics.connectionClosed());
            }
        });
        return future;
    }
}
