package io.leasehold.proxy.backend;

import io.leasehold.proxy.transport.NettyTransport;
import io.leasehold.proxy.transport.SocketTuning;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.LengthFieldPrepender;
import java.time.Duration;

/**
 * Opens connections to brokers with the proxy's timeouts and frame limit. Sessions use it to
 * connect on the event loop of the client connection they serve, so a client's requests and
 * their backend traffic never cross threads.
 */
public final class BackendConnector {
    private final Duration connectTimeout;
    private final Duration requestTimeout;
    private final int maxResponseBytes;
    private final BackendListener metrics;

    /**
     * @param maxResponseBytes largest response frame accepted from a broker
     * @param metrics          told about every backend connection opened and closed
     */
    public BackendConnector(Duration connectTimeout, Duration requestTimeout, int maxResponseBytes,
                            BackendListener metrics) {
        this.connectTimeout = connectTimeout;
        this.requestTimeout = requestTimeout;
        this.maxResponseBytes = maxResponseBytes;
        this.metrics = metrics;
    }

    /** A new session whose connections live on {@code loop}. */
    public BackendSession openSession(EventLoop loop, BackendListener sessionListener) {
        return new BackendSession(this, loop, sessionListener);
    }

    Duration requestTimeout() {
        return requestTimeout;
    }

    ChannelFuture connect(EventLoop loop, String host, int port, BackendConnection connection,
                          Runnable writabilityChanged) {
        Bootstrap bootstrap = new Bootstrap()
                .group(loop)
                .channel(NettyTransport.channelFor(loop))
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) connectTimeout.toMillis())
                .option(ChannelOption.TCP_NODELAY, true)
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
