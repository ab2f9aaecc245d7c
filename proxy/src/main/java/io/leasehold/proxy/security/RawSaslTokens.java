package io.leasehold.proxy.security;

import io.leasehold.proxy.audit.AuthenticationAudit;
import io.leasehold.proxy.request.ConnectionPrincipal;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.apache.kafka.common.protocol.ApiKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * After a SaslHandshake v0 the client sends its SASL tokens as bare length-prefixed frames, with
 * no Kafka request header, and expects bare tokens back. This handler sits just before the
 * connection's request handler for exactly that stretch: it answers each frame with the
 * mechanism's next token and removes itself once the exchange has ended. A failure closes the
 * connection, as a Kafka broker does (v0 has no way to carry an error). The outcome is reported
 * to the audit log as SaslHandshake's, the request that started the exchange.
 */
final class RawSaslTokens extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(RawSaslTokens.class);

    private final SaslAuthenticator authenticator;
    private final String remote;
    private final String clientId;
    private final AuthenticationAudit audit;

    /** @param clientId the client id of the SaslHandshake that started the exchange */
    RawSaslTokens(SaslAuthenticator authenticator, String remote, String clientId, AuthenticationAudit audit) {
        this.authenticator = authenticator;
        this.remote = remote;
        this.clientId = clientId;
        this.audit = audit;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf frame = (ByteBuf) msg;
        byte[] token;
        try {
            if (frame.readableBytes() > SaslGate.MAX_UNAUTHENTICATED_BYTES) {
                LOG.info("Closing client {}: a SASL token of {} bytes (at most {})", remote, frame.readableBytes(),
                        SaslGate.MAX_UNAUTHENTICATED_BYTES);
                audit.refused(ApiKeys.SASL_HANDSHAKE.name, remote, clientId, null);
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
                audit.accepted(ApiKeys.SASL_HANDSHAKE.name, ConnectionPrincipal.user(authenticator.userName()), remote,
                        clientId);
                ctx.pipeline().remove(this);
            }
        } catch (AuthenticationFailure e) {
            LOG.info("SASL authentication of client {} failed ({}); closing the connection", remote, e.reason());
            audit.refused(ApiKeys.SASL_HANDSHAKE.name, remote, clientId, null);
            ctx.close();
        }
    }
}
