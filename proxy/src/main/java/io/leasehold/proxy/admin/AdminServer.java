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
import io.netty.util.concurrent.DefaultEventExecutor;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The admin HTTP endpoint on its own single-thread event loop, so a slow scraper never competes
 * with Kafka traffic: {@code /healthz} (200 while live), {@code /readyz} (200, or 503 with the
 * reason), {@code /metrics} (Prometheus text) and, unless switched off, {@code /routes} (the
 * routing table as JSON). The probes are answered on the event loop itself; the metrics scrape and
 * {@code /routes} are rendered on a separate thread, so a slow or looping client of those never
 * delays a probe. At most {@link #MAX_CONNECTIONS} admin connections are open at once; a new one
 * closes the oldest ({@link AdminConnections}), and a connection that has not sent a whole request
 * within {@link #REQUEST_DEADLINE} of being ready for one is closed however many bytes it trickles
 * ({@link RequestDeadline}), so probes are served whatever other admin clients do.
 */
public final class AdminServer implements AutoCloseable {

    private static final int MAX_REQUEST_BYTES = 16 * 1024;
    /** A whole request must arrive within this of a connection being ready for one; probes send theirs at once. */
    static final Duration REQUEST_DEADLINE = Duration.ofSeconds(10);
    /** Probes, one scraper and a few people with curl need far fewer; more is a client misbehaving. */
    static final int MAX_CONNECTIONS = 32;

    private final String host;
    private final int requestedPort;
    private final AdminHttpHandler handler;
    private final EventExecutor renderer;
    private final Duration requestDeadline;
    private EventLoopGroup group;
    private Channel channel;

    /**
     * @param port          the port to bind, or 0 for any free port (see {@link #port()})
     * @param routesEnabled whether {@code /routes} is served; when not, it answers 404
     */
    public AdminServer(String host, int port, boolean routesEnabled, HealthProbe health, RoutingTable routes,
                       PrometheusMeterRegistry registry) {
        this(host, port, routesEnabled, health, routes, registry, REQUEST_DEADLINE);
    }

    /** As the public constructor, with the time a connection has to deliver a whole request. */
    AdminServer(String host, int port, boolean routesEnabled, HealthProbe health, RoutingTable routes,
                PrometheusMeterRegistry registry, Duration requestDeadline) {
        this.requestDeadline = requestDeadline;
        this.host = host;
        this.requestedPort = port;
        this.renderer = new DefaultEventExecutor(new DefaultThreadFactory("leasehold-admin-render", true));
        this.handler = new AdminHttpHandler(health, routesEnabled ? routes : null, registry, renderer);
    }

    /** Binds the port and starts serving; returns once bound. */
    public void start() throws InterruptedException {
        if (group != null) {
            throw new IllegalStateException("admin server already started");
        }
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        AdminConnections connections = new AdminConnections(MAX_CONNECTIONS);
        try {
            channel = new ServerBootstrap()
                    .group(group)
                    .channel(NioServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            connections.admit(ch);
                            ch.pipeline()
                                    .addLast(new HttpServerCodec())
                                    .addLast(new HttpObjectAggregator(MAX_REQUEST_BYTES))
                                    .addLast(new RequestDeadline(requestDeadline))
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
        renderer.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
