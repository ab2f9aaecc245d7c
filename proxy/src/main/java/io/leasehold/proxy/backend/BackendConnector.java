package io.leasehold.proxy.backend;

import io.leasehold.proxy.logging.WarningRateLimiter;
import io.leasehold.proxy.transport.NettyTransport;
import io.leasehold.proxy.transport.SocketTuning;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.LengthFieldPrepender;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
    private static final Logger LOG = LoggerFactory.getLogger(BackendConnector.class);
    /** Idle time before the first keepalive probe, probe interval, and probes before giving up. */
    private static final int KEEPALIVE_IDLE_SECONDS = 15;
    private static final int KEEPALIVE_INTERVAL_SECONDS = 5;
    private static final int KEEPALIVE_PROBES = 3;
    /**
     * Share of a broker's SASL session lifetime a connection is used for new requests: Kafka's
     * own clients re-authenticate at 85-95 %, and a request sent before then reaches the broker in time.
     */
    private static final double SESSION_USE = 0.85;

    private final Settings settings;
    private final BackendListener metrics;
    /** The client TLS context for the next broker connection; {@code null} for plaintext. */
    private final Supplier<SslContext> tls;
    /** One line per broker per 10 s: every client connection retries a broker whose certificate is refused. */
    private final WarningRateLimiter handshakeWarnings = new WarningRateLimiter(10_000, System::nanoTime);
    private final BrokerNameResolution names;
    /** Logs each new connection in before it carries requests; {@code null} for brokers without SASL. */
    private final BrokerLogin login;
    /** One line per broker per 10 s, like refused certificates. */
    private final WarningRateLimiter loginWarnings = new WarningRateLimiter(10_000, System::nanoTime);
    private final ByteBufAllocator buffers;

    /**
     * The timeouts and frame limit of every broker connection.
     *
     * @param connectTimeout        bound on opening a connection, on its TLS handshake, on each answer
     *                              of its SASL login, and on each query of the default name resolution
     * @param requestTimeout        default bound on a forwarded request's answer
     * @param controlRequestTimeout bound on each broker's answer to an idempotent read before the
     *                              next broker is asked ({@link BackendSession#sendToAny})
     * @param maxResponseBytes      largest response frame accepted from a broker
     */
    public record Settings(Duration connectTimeout, Duration requestTimeout, Duration controlRequestTimeout,
                           int maxResponseBytes) {
    }

    /**
     * A connector with {@code settings} that tells {@code metrics} about every backend connection
     * opened and closed and every refused login. Unless the builder says otherwise it connects in
     * plaintext, resolves broker names with this host's name servers, does not log in, and takes
     * buffers from Netty's default allocator.
     */
    public static Builder builder(Settings settings, BackendListener metrics) {
        return new Builder(settings, metrics);
    }

    private BackendConnector(Builder parts) {
        this.settings = parts.settings;
        this.metrics = parts.metrics;
        this.tls = parts.tls;
        this.names = parts.names;
        this.login = parts.login;
        this.buffers = parts.buffers;
    }

    /** The optional parts of a {@link BackendConnector}; see {@link BackendConnector#builder}. */
    public static final class Builder {
        private final Settings settings;
        private final BackendListener metrics;
        private Supplier<SslContext> tls;
        private BrokerNameResolution names;
        private BrokerLogin login;
        private ByteBufAllocator buffers = ByteBufAllocator.DEFAULT;

        private Builder(Settings settings, BackendListener metrics) {
            this.settings = settings;
            this.metrics = metrics;
        }

        /**
         * The client TLS context for each new broker connection, asked once per connection (open
         * connections keep theirs); {@code null} for plaintext.
         */
        public Builder tls(Supplier<SslContext> tls) {
            this.tls = tls;
            return this;
        }

        /** Resolves broker host names off the event loops' critical path; {@code null} for this host's name servers. */
        public Builder names(BrokerNameResolution names) {
            this.names = names;
            return this;
        }

        /**
         * Logs every new connection in (after TLS, when on) before it counts as open; {@code null}
         * for brokers without SASL.
         */
        public Builder login(BrokerLogin login) {
            this.login = login;
            return this;
        }

        /** Where broker connections' buffers come from: socket reads and the response frames gathered from them. */
        public Builder buffers(ByteBufAllocator buffers) {
            this.buffers = buffers;
            return this;
        }

        public BackendConnector build() {
            if (names == null) {
                names = BrokerNameResolution.ofThisHost(settings.connectTimeout());
            }
            return new BackendConnector(this);
        }
    }

    /** A new session whose connections live on {@code loop}. */
    public BackendSession openSession(EventLoop loop, BackendListener sessionListener) {
        return new BackendSession(this, loop, sessionListener);
    }

    /** Hears about every connection of every session: the proxy's metrics. */
    BackendListener metrics() {
        return metrics;
    }

    Duration requestTimeout() {
        return settings.requestTimeout();
    }

    Duration controlRequestTimeout() {
        return settings.controlRequestTimeout();
    }

    ChannelFuture connect(EventLoop loop, String host, int port, BackendConnection connection,
                          Runnable writabilityChanged) {
        Bootstrap bootstrap = new Bootstrap()
                .group(loop)
                .channel(NettyTransport.channelFor(loop))
                // Netty's default resolver looks names up with InetAddress, blocking the event loop.
                .resolver(names.on(loop))
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) settings.connectTimeout().toMillis())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, SocketTuning.WRITES)
                .option(ChannelOption.RCVBUF_ALLOCATOR, SocketTuning.READS)
                .option(ChannelOption.ALLOCATOR, buffers)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (tls != null) {
                            SslHandler ssl = tls.get().newHandler(ch.alloc(), host, port);
                            // The handshake is part of connecting: it gets the connect timeout.
                            ssl.setHandshakeTimeout(settings.connectTimeout().toMillis(), TimeUnit.MILLISECONDS);
                            ch.pipeline().addLast(ssl);
                        }
                        ch.pipeline().addLast(
                                new ResponseFramer(settings.maxResponseBytes(), connection),
                                new LengthFieldPrepender(4),
                                new WritabilityRelay(writabilityChanged),
                                connection);
                    }
                });
        if (NettyTransport.channelFor(loop) == EpollSocketChannel.class) {
            bootstrap.option(EpollChannelOption.TCP_KEEPIDLE, KEEPALIVE_IDLE_SECONDS)
                    .option(EpollChannelOption.TCP_KEEPINTVL, KEEPALIVE_INTERVAL_SECONDS)
                    .option(EpollChannelOption.TCP_KEEPCNT, KEEPALIVE_PROBES)
                    .option(EpollChannelOption.TCP_USER_TIMEOUT, (int) settings.requestTimeout().toMillis());
        }
        ChannelFuture connected = bootstrap.connect(host, port);
        connection.attach(connected.channel());
        ChannelFuture secured = tls == null ? connected : handshaken(connected, host, port);
        ChannelFuture ready = login == null ? secured : loggedIn(secured, connection, host, port);
        ready.addListener(f -> {
            if (f.isSuccess()) {
                metrics.connectionOpened();
                ready.channel().closeFuture().addListener(c -> metrics.connectionClosed());
            }
        });
        return ready;
    }

    /**
     * Completes once {@code connection}, after {@code secured}, has logged in; a refused login
     * closes it and fails, so the broker counts as unreachable. A session the broker limits is
     * retired at {@link #SESSION_USE} of its lifetime, well before the broker would close it.
     */
    private ChannelFuture loggedIn(ChannelFuture secured, BackendConnection connection, String host, int port) {
        ChannelPromise ready = secured.channel().newPromise();
        secured.addListener(s -> {
            if (!s.isSuccess()) {
                ready.setFailure(s.cause());
                return;
            }
            login.authenticate(connection, host, settings.connectTimeout()).whenComplete((lifetime, error) -> {
                if (error == null) {
                    if (!lifetime.isZero()) {
                        connection.retireAfter(Duration.ofMillis((long) (lifetime.toMillis() * SESSION_USE)));
                    }
                    ready.setSuccess();
                    return;
                }
                Throwable cause = error instanceof CompletionException && error.getCause() != null
                        ? error.getCause() : error;
                metrics.authenticationFailed();
                loginWarnings.warn(LOG, "backend SASL", InetSocketAddress.createUnresolved(host, port),
                        "SASL login to broker {}:{} as {} failed, so it counts as unreachable: {}", host, port,
                        login.describe(), cause.getMessage());
                ready.setFailure(cause);
                secured.channel().close();
            });
        });
        return ready;
    }

    /** Completes when the TLS handshake after {@code connected} does, failing with its cause. */
    private ChannelFuture handshaken(ChannelFuture connected, String host, int port) {
        ChannelPromise ready = connected.channel().newPromise();
        connected.addListener(c -> {
            if (!c.isSuccess()) {
                ready.setFailure(c.cause());
                return;
            }
            connected.channel().pipeline().get(SslHandler.class).handshakeFuture().addListener(h -> {
                if (h.isSuccess()) {
                    ready.setSuccess();
                } else {
                    handshakeWarnings.warn(LOG, "backend TLS", InetSocketAddress.createUnresolved(host, port),
                            "TLS handshake with broker {}:{} failed, so it counts as unreachable: {}", host, port,
                            h.cause().getMessage());
                    ready.setFailure(h.cause());
                    connected.channel().close();
                }
            });
        });
        return ready;
    }
}
