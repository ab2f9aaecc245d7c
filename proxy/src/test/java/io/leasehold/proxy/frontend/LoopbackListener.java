package io.leasehold.proxy.frontend;

import io.leasehold.proxy.admin.ProxyMetrics;
import io.leasehold.proxy.backend.BackendConnector;
import io.leasehold.proxy.backend.BackendListener;
import io.leasehold.proxy.request.MemoryBudget;
import io.leasehold.proxy.request.RequestHandler;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.handler.ssl.SslContext;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A {@link FrontendServer} (plaintext unless given a TLS context) on a free loopback port with its own one-thread event
 * loops, for the listener's tests; closing it stops the server and its loops.
 */
final class LoopbackListener implements AutoCloseable {
    private final EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final EventLoopGroup workers = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final FrontendServer server;
    private final int port;

    LoopbackListener(RequestHandler handler, MeterRegistry registry, FrontendServer.Limits limits)
            throws InterruptedException {
        this(handler, registry, limits, new MemoryBudget(Long.MAX_VALUE));
    }

    /** A listener whose connections stop reading while {@code budget} is used up. */
    LoopbackListener(RequestHandler handler, MeterRegistry registry, FrontendServer.Limits limits, MemoryBudget budget)
            throws InterruptedException {
        this(handler, registry, limits, budget, null);
    }

    /** A TLS listener when {@code tls} is not {@code null}. */
    LoopbackListener(RequestHandler handler, MeterRegistry registry, FrontendServer.Limits limits, MemoryBudget budget,
                     SslContext tls) throws InterruptedException {
        ProxyMetrics metrics = new ProxyMetrics(registry);
        metrics.bindMemoryBudget(budget);
        server = FrontendServer.builder("127.0.0.1", 0, boss, workers, handler,
                        BackendConnector.builder(new BackendConnector.Settings(Duration.ofSeconds(1),
                                Duration.ofSeconds(1), Duration.ofSeconds(1), 1024), new BackendListener() { }).build(),
                        metrics, limits)
                .tls(tls == null ? null : () -> tls)
                .budget(budget)
                .build();
        port = server.start().getPort();
    }

    int port() {
        return port;
    }

    FrontendServer server() {
        return server;
    }

    @Override
    public void close() {
        server.close();
        workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
