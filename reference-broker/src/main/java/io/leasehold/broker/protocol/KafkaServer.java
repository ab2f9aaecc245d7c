package io.leasehold.broker.protocol;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The Kafka-protocol listener: length-prefixed frames into the dispatcher, one handler per
 * connection; TLS first in the pipeline when the broker was given a certificate.
 */
public final class KafkaServer implements AutoCloseable {

    /** Largest request frame accepted, as Kafka's socket.request.max.bytes default. */
    private static final int MAX_FRAME_BYTES = 100 * 1024 * 1024;

    private final EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final EventLoopGroup workers = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    private Channel listener;

    /**
     * Binds and serves; returns the bound port (useful when asked for port 0).
     *
     * @param tls the server TLS context, {@code null} for plaintext
     */
    public int start(String host, int port, RequestDispatcher dispatcher, SslContext tls) throws InterruptedException {
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(boss, workers)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        connections.add(channel);
                        if (tls != null) {
                            channel.pipeline().addLast(tls.newHandler(channel.alloc()));
                        }
                        channel.pipeline()
                                .addLast(new LengthFieldBasedFrameDecoder(MAX_FRAME_BYTES, 0, 4, 0, 4))
                                .addLast(new ConnectionHandler(dispatcher));
                    }
                });
        listener = bootstrap.bind(host, port).sync().channel();
        return ((InetSocketAddress) listener.localAddress()).getPort();
    }

    /** Stops accepting connections; open connections keep being served. */
    public void stopAccepting() throws InterruptedException {
        if (listener != null) {
            listener.close().sync();
        }
    }

    @Override
    public void close() throws InterruptedException {
        stopAccepting();
        connections.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        boss.shutdownGracefully(0, 2, TimeUnit.SECONDS).sync();
        workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).sync();
    }
}
