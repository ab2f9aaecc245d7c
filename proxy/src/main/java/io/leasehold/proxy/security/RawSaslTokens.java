package io.leasehold.proxy.security;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * After a SaslHandshake v0 the client sends its SASL tokens as bare length-prefixed frames, with
 * no Kafka request header, and expects bare tokens back. This handler sits just before the
 * connection's request handler for exactly that stretch: it answers each frame with the
 * mechanism's next token and removes itself once the exchange has ended. A failure closes the
 * connection, as a Kafka broker does (v0 has no way to carry an error).
 */
final class RawSaslTokens extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(RawSaslTokens.class);

    private final SaslAuthenticator authenticator;
    private final String remote;

    RawSaslTokens(SaslAuthenticator authenticator, String remote) {
        this.authenticator = authenticator;
        this.remote = remote;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf frame = (ByteBuf) msg;
        byte[] token;
        try {
            if (frame.readableBytes() > SaslGate.MAX_UNAUTHENTICATED_BYTES) {
                LOG.info("Closing client {}: a SASL token of {} bytes (at most {})", remote, frame.readableBytes(),
                        SaslGate.MAX_UNAUTHENTICATED_BYTES);
                ctx.close();
                return;
            }
            token = ByteBufUtil.getBytes(frame);
        } finally {
            frame.release();
        }
        try {
            byte[] answer = authenticator.step(token);
            ctx.writeAndFlush(Unpooled.wrappedBuffer(answer));
            if (authenticator.state() == SaslAuthenticator.State.AUTHENTICATED) {
                ctx.pipeline().remove(this);
            }
        } catch (AuthenticationFailure e) {
            LOG.info("SASL authentication of client {} failed ({}); closing the connection", remote, e.reason());
            ctx.close();
        }
    }
}
