package io.leasehold.proxy.admin;

import io.leasehold.routing.watch.RoutingTable;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.timeout.ReadTimeoutHandler;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The admin HTTP endpoint on its own single-thread event loop, so a slow scraper never competes
 * with Kafka traffic: {@code /healthz} (200 while live), {@code /readyz} (200, or 503 with the
 * reason), {@code /metrics} (Prometheus text) and {@code /routes} (the routing table as JSON).
 */
public final class AdminServer implements AutoCloseable {

    private static final int MAX_REQUEST_BYTES = 16 * 1024;
    private static final int IDLE_SECONDS = 60;

    private final String host;
    private final int requestedPort;
    private final AdminHttpHandler handler;
    private EventLoopGroup group;
    private Channel channel;

    /** @param port the port to bind, or 0 for any free port (see {@link #port()}) */
    public AdminServer(String host, int port, HealthProbe health, RoutingTable routes,
                       PrometheusMeterRegistry registry) {
        this.host = host;
        this.requestedPort = port;
        this.handler = new AdminHttpHandler(health, routes, registry);
    }

    /** Binds the port and starts serving; returns once bound. */
    public void start() throws InterruptedException {
        if (group != null) {
            throw new IllegalStateException("admin server already started");
        }
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            channel = new ServerBootstrap()
                    .group(group)
                    .channel(NioServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline()
                                    .addLast(new ReadTimeoutHandler(IDLE_SECONDS))
                                    .addLast(new HttpServerCodec())
                                    .addLast(new HttpObjectAggregator(MAX_REQUEST_BYTES))
                                    .addLast(handler);
                        }
                    })
                    .bind(host, requestedPort).sync().channel();
        } catch (InterruptedException e) {
            close();
            throw e;
        } catch (Exception e) {
            // bind() rethrows the socket's checked exception (e.g. address in use) undeclared.
            close();
            throw new IllegalStateException("admin server could not listen on " + host + ":" + requestedPort
                    + " (admin.host/admin.port): " + e, e);
        }
    }

    /** The bound port; only valid after {@link #start()}. */
    public int port() {
        if (channel == null) {
            throw new IllegalStateException("admin server not started");
        }
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    /** Stops listening and closes open admin connections. */
    @Override
    public void close() {
        if (channel != null) {
            channel.close().syncUninterruptibly();
            channel = null;
        }
        if (group != null) {
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
            group = null;
        }
    }
}
