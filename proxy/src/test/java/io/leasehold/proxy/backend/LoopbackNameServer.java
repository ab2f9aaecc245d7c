package io.leasehold.proxy.backend;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.handler.codec.dns.DatagramDnsQuery;
import io.netty.handler.codec.dns.DatagramDnsQueryDecoder;
import io.netty.handler.codec.dns.DatagramDnsResponse;
import io.netty.handler.codec.dns.DatagramDnsResponseEncoder;
import io.netty.handler.codec.dns.DefaultDnsQuestion;
import io.netty.handler.codec.dns.DefaultDnsRawRecord;
import io.netty.handler.codec.dns.DnsOpCode;
import io.netty.handler.codec.dns.DnsQuestion;
import io.netty.handler.codec.dns.DnsRecordType;
import io.netty.handler.codec.dns.DnsResponseCode;
import io.netty.handler.codec.dns.DnsSection;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A DNS server on loopback UDP for tests (Netty's DNS codec): answers A queries for the names it
 * was given with 127.0.0.1, each after its own delay; every other name gets NXDOMAIN, and other
 * record types of a known name an empty answer. Keeps the queries it was asked and answered.
 */
final class LoopbackNameServer implements AutoCloseable {
    private static final byte[] LOOPBACK = {127, 0, 0, 1};

    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final List<String> asked = new CopyOnWriteArrayList<>();
    private final List<String> answered = new CopyOnWriteArrayList<>();
    private final Channel channel;

    /** @param names the names it knows, each with how long it takes to answer */
    LoopbackNameServer(Map<String, Duration> names) {
        channel = new Bootstrap().group(group).channel(NioDatagramChannel.class)
                .handler(new ChannelInitializer<DatagramChannel>() {
                    @Override
                    protected void initChannel(DatagramChannel ch) {
                        ch.pipeline().addLast(new DatagramDnsQueryDecoder(), new DatagramDnsResponseEncoder(),
                                new SimpleChannelInboundHandler<DatagramDnsQuery>() {
                                    @Override
                                    protected void channelRead0(ChannelHandlerContext ctx, DatagramDnsQuery query) {
                                        answer(ctx, query, names);
                                    }
                                });
                    }
                })
                .bind(new InetSocketAddress("127.0.0.1", 0)).syncUninterruptibly().channel();
    }

    private void answer(ChannelHandlerContext ctx, DatagramDnsQuery query, Map<String, Duration> names) {
        DnsQuestion question = query.recordAt(DnsSection.QUESTION);
        String name = question.name().endsWith(".") ? question.name().substring(0, question.name().length() - 1)
                : question.name();
        asked.add(name + " " + question.type().name());
        Duration delay = names.get(name);
        DatagramDnsResponse response = new DatagramDnsResponse(query.recipient(), query.sender(), query.id(),
                DnsOpCode.QUERY, delay == null ? DnsResponseCode.NXDOMAIN : DnsResponseCode.NOERROR);
        response.addRecord(DnsSection.QUESTION, new DefaultDnsQuestion(question.name(), question.type()));
        if (delay != null && question.type() == DnsRecordType.A) {
            response.addRecord(DnsSection.ANSWER, new DefaultDnsRawRecord(question.name(), DnsRecordType.A, 60,
                    Unpooled.wrappedBuffer(LOOPBACK)));
        }
        ctx.executor().schedule(() -> {
            answered.add(name + " " + question.type().name());
            ctx.writeAndFlush(response);
        }, delay == null ? 0 : delay.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Where it listens. */
    InetSocketAddress address() {
        return (InetSocketAddress) channel.localAddress();
    }

    /** The queries it got, as "name TYPE". */
    List<String> asked() {
        return List.copyOf(asked);
    }

    /** The queries it has answered so far, as "name TYPE". */
    List<String> answered() {
        return List.copyOf(answered);
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
