package io.leasehold.broker.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection. Requests are handled one at a time, in arrival order, like a Kafka
 * broker does: responses go out in request order, and a produce is committed before the next
 * request of the connection is looked at. Reading pauses while many requests are queued.
 */
final class ConnectionHandler extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(ConnectionHandler.class);
    private static final int MAX_QUEUED = 32;

    private final RequestDispatcher dispatcher;
    private final ArrayDeque<ByteBuffer> queued = new ArrayDeque<>();
    private boolean busy;
    private String clientHost = "unknown";

    ConnectionHandler(RequestDispatcher dispatcher) {
        this.dispatcher = dispatcher;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        SocketAddress remote = ctx.channel().remoteAddress();
        if (remote instanceof InetSocketAddress inet) {
            clientHost = inet.getAddress().getHostAddress();
        }
        super.channelActive(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf frame = (ByteBuf) msg;
        ByteBuffer copy;
        try {
            // A heap copy the request objects may keep views of (records) after the frame is released.
            copy = ByteBuffer.allocate(frame.readableBytes());
            frame.readBytes(copy);
            copy.flip();
        } finally {
            frame.release();
        }
        queued.add(copy);
        if (queued.size() >= MAX_QUEUED) {
            ctx.channel().config().setAutoRead(false);
        }
        if (!busy) {
            processNext(ctx);
        }
    }

    private void processNext(ChannelHandlerContext ctx) {
        ByteBuffer next = queued.poll();
        if (next == null) {
            busy = false;
            ctx.channel().config().setAutoRead(true);
            return;
        }
        busy = true;
        dispatcher.dispatch(next, clientHost).whenComplete((response, error) -> ctx.executor().execute(() -> {
            if (error != null) {
                if (error instanceof RequestDispatcher.ProtocolViolation) {
                    LOG.warn("closing connection from {}: {}", clientHost, error.getMessage());
                } else {
                    LOG.error("closing connection from {}: the response could not be built", clientHost, error);
                }
                queued.clear();
                ctx.close();
                return;
            }
            if (response != null) {
                ctx.writeAndFlush(response);
            }
            if (queued.size() < MAX_QUEUED / 2) {
                ctx.channel().config().setAutoRead(true);
            }
            processNext(ctx);
        }));
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        // The client is gone and cannot learn the outcome of what it queued: do not start it.
        queued.clear();
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.warn("connection from {} failed: {}", clientHost, cause.toString());
        ctx.close();
    }
}
