package io.leasehold.proxy.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.proxy.transport.NettyTransport;
import io.leasehold.routing.snapshot.BrokerAddress;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.resolver.dns.SingletonDnsServerAddressStreamProvider;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Broker host names are resolved without blocking the event loop that connects: a broker
 * stand-in listens on 127.0.0.1 and a name server on loopback answers for it.
 */
class BrokerNameResolutionTest {
    private static final Duration SLOW_ANSWER = Duration.ofSeconds(1);

    private final ServerSocket broker = listen();
    private final LoopbackNameServer nameServer = new LoopbackNameServer(Map.of(
            "broker-0.brokers.test", Duration.ZERO, "slow.brokers.test", SLOW_ANSWER));
    private final AtomicInteger failedLookups = new AtomicInteger();
    /** A negative TTL far longer than any test: a failed lookup is asked once. */
    private final BrokerNameResolution names = new BrokerNameResolution(
            new SingletonDnsServerAddressStreamProvider(nameServer.address()), Duration.ofSeconds(5),
            new BrokerNameResolution.Ttls(Duration.ofSeconds(1), Duration.ofSeconds(30), Duration.ofMinutes(5)),
            failedLookups::incrementAndGet);
    private EventLoopGroup loops;

    @AfterEach
    void stop() throws IOException {
        if (loops != null) {
            loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
        names.close();
        nameServer.close();
        broker.close();
    }

    @ParameterizedTest
    @EnumSource(NettyTransport.class)
    void anEventLoopRunsOtherWorkWhileABrokerNameIsStillBeingResolved(NettyTransport transport) throws Exception {
        EventLoop loop = loopOf(transport);
        BackendConnector connector = connector();
        CompletableFuture<ChannelFuture> connecting = new CompletableFuture<>();
        CompletableFuture<List<String>> answeredWhenOtherWorkRan = new CompletableFuture<>();
        loop.execute(() -> {
            connecting.complete(connector.connect(loop, "slow.brokers.test", broker.getLocalPort(),
                    new BackendConnection("slow", -1, new BackendListener() { }), () -> { }));
            loop.execute(() -> answeredWhenOtherWorkRan.complete(nameServer.answered()));
        });

        assertThat(answeredWhenOtherWorkRan.get(10, TimeUnit.SECONDS))
                .as("queries answered when the loop ran its next task").isEmpty();
        ChannelFuture connect = connecting.get(10, TimeUnit.SECONDS);
        assertThat(connect.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(connect.isSuccess()).as("connected to the address the name server gave").isTrue();
        connect.channel().close().syncUninterruptibly();
        assertThat(nameServer.answered()).contains("slow.brokers.test A");
    }

    @Test
    void aBrokerNamedInTheHostsFileIsReachedWithoutAQuery() throws Exception {
        EventLoop loop = loopOf(NettyTransport.preferred());
        ChannelFuture connect = connectOn(loop, "localhost");

        assertThat(connect.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(connect.isSuccess()).isTrue();
        connect.channel().close().syncUninterruptibly();
        assertThat(nameServer.asked()).as("queries sent for a name in /etc/hosts").isEmpty();
    }

    @Test
    void aBrokerNameFromTheNameServerIsCachedForTheNextConnection() throws Exception {
        EventLoop loop = loopOf(NettyTransport.preferred());
        for (int i = 0; i < 2; i++) {
            ChannelFuture connect = connectOn(loop, "broker-0.brokers.test");
            assertThat(connect.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(connect.isSuccess()).isTrue();
            connect.channel().close().syncUninterruptibly();
        }
        assertThat(nameServer.asked()).as("A queries for two connections").containsOnlyOnce("broker-0.brokers.test A");
    }

    @Test
    void aBrokerNameThatDoesNotResolveFailsTheRequestAsNeverSentNamingTheHost() throws Exception {
        EventLoop loop = loopOf(NettyTransport.preferred());
        BackendSession session = connector().openSession(loop, new BackendListener() { });
        ByteBuf request = Unpooled.buffer().writeShort(18).writeShort(0).writeInt(0).writeShort(-1);

        CompletableFuture<ByteBuf> sent = session.send(
                new BrokerAddress(3, "missing.brokers.test", broker.getLocalPort(), null), request);

        assertThatThrownBy(() -> sent.get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(BackendUnreachableException.class)
                .hasMessageContaining("cannot connect to broker 3@missing.brokers.test:" + broker.getLocalPort())
                .hasMessageContaining("Failed to resolve 'missing.brokers.test'")
                .hasCauseInstanceOf(UnknownHostException.class);
        assertThat(request.refCnt()).as("request released").isZero();
        assertThat(failedLookups.get()).as("failed lookups reported").isEqualTo(1);
        session.close();
    }

    @Test
    void aFailedLookupIsReportedEachTimeAndAnsweredFromTheCacheForTheNegativeTtl() throws Exception {
        EventLoop loop = loopOf(NettyTransport.preferred());
        for (int i = 0; i < 2; i++) {
            ChannelFuture connect = connectOn(loop, "missing.brokers.test");
            assertThat(connect.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(connect.cause()).as("connect %d", i).isInstanceOf(UnknownHostException.class);
        }
        assertThat(failedLookups.get()).as("failed lookups reported").isEqualTo(2);
        assertThat(nameServer.asked().stream().filter("missing.brokers.test A"::equals))
                .as("A queries within the negative TTL").hasSize(1);
    }

    private ChannelFuture connectOn(EventLoop loop, String host) throws Exception {
        BackendConnector connector = connector();
        return loop.submit(() -> connector.connect(loop, host, broker.getLocalPort(), new BackendConnection(host, -1, new BackendListener() { }),
                () -> { })).get(10, TimeUnit.SECONDS);
    }

    private BackendConnector connector() {
        return BackendConnector.builder(new BackendConnector.Settings(Duration.ofSeconds(5), Duration.ofSeconds(5),
                        Duration.ofSeconds(5), 1 << 20), new BackendListener() { })
                .names(names)
                .build();
    }

    private EventLoop loopOf(NettyTransport transport) {
        loops = new MultiThreadIoEventLoopGroup(1, transport.ioHandlerFactory());
        return loops.next();
    }

    private static ServerSocket listen() {
        try {
            return new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
