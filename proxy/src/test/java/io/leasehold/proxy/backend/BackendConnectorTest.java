package io.leasehold.proxy.backend;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.ChannelFuture;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** What a connector is built with reaches the broker connections it opens. */
class BackendConnectorTest {

    @Test
    void brokerConnectionsTakeTheirBuffersFromTheAllocatorTheConnectorWasBuiltWith() throws Exception {
        ByteBufAllocator buffers = new PooledByteBufAllocator(true);
        BackendConnector connector = BackendConnector.builder(new BackendConnector.Settings(Duration.ofSeconds(5),
                        Duration.ofSeconds(5), Duration.ofSeconds(5), 1 << 20), new BackendListener() { })
                .buffers(buffers)
                .build();
        EventLoopGroup loops = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try (ServerSocket broker = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            EventLoop loop = loops.next();
            ChannelFuture connect = loop.submit(() -> connector.connect(loop, "127.0.0.1", broker.getLocalPort(),
                    new BackendConnection("broker", -1, new BackendListener() { }), () -> { })).get(10, TimeUnit.SECONDS);

            assertThat(connect.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(connect.isSuccess()).as("connected").isTrue();
            assertThat(connect.channel().alloc()).as("the connection's allocator").isSameAs(buffers);
            connect.channel().close().syncUninterruptibly();
        } finally {
            loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
