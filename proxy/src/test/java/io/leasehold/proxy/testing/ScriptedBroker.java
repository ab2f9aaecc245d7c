package io.leasehold.proxy.testing;

import io.leasehold.proxy.protocol.KafkaMessages;
import io.leasehold.proxy.protocol.RequestFrame;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.LengthFieldPrepender;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * An in-test stand-in for a broker, for unit tests of one proxy class: answers each request with
 * what {@code script} returns for its body (hangs up when it returns null, stays silent when it
 * returns {@link #SILENCE}), and counts requests per API.
 */
@ChannelHandler.Sharable
public final class ScriptedBroker extends ChannelInboundHandlerAdapter implements AutoCloseable {
    /** What a script returns to leave a request unanswered, like a broker that is long-polling or paused. */
    public static final ApiMessage SILENCE = new ApiVersionsResponseData();

    private final Function<ApiMessage, ApiMessage> script;
    private final Map<ApiKeys, AtomicInteger> counts = new ConcurrentHashMap<>();
    private final Channel channel;

    public ScriptedBroker(EventLoopGroup group, Function<ApiMessage, ApiMessage> script) throws InterruptedException {
        this.script = script;
        ScriptedBroker handler = this;
        this.channel = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(1 << 20, 0, 4, 0, 4),
                                new LengthFieldPrepender(4), handler);
                    }
                }).bind("127.0.0.1", 0).sync().channel();
    }

    public int port() {
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    public int requests(ApiKeys api) {
        return counts.getOrDefault(api, new AtomicInteger()).get();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        RequestFrame frame = RequestFrame.parse((ByteBuf) msg);
        try {
            counts.computeIfAbsent(frame.apiKey(), k -> new AtomicInteger()).incrementAndGet();
            ApiMessage answer = script.apply(frame.decodeBody());
            if (answer == null) {
                ctx.close();
                return;
            }
            if (answer == SILENCE) {
                return;
            }
            ctx.writeAndFlush(KafkaMessages.encodeResponse(ctx.alloc(), frame.apiKey(), frame.version(),
                    frame.correlationId(), answer));
        } finally {
            frame.release();
        }
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
    }
}
