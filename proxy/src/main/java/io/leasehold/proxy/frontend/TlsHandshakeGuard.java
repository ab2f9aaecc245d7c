package io.leasehold.proxy.frontend;

import io.leasehold.proxy.audit.AuthenticationAudit;
import io.leasehold.proxy.logging.WarningRateLimiter;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.ssl.SslHandshakeTimeoutException;
import java.io.IOException;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sits right behind a client connection's {@code SslHandler}. A failed TLS handshake is logged
 * once with the client's address and the reason, counted by reason, and that connection (no
 * other) is closed. Netty reports a failure both as an event and as an exception; only the
 * first is reported and nothing about it is passed on, so the connection handler does not log
 * the same failure again. Errors after a successful handshake go on to the connection handler.
 * A handshake the proxy refused ({@code rejected}, e.g. an untrusted client certificate) is an
 * authentication refused for the audit log; probes that close or time out are not.
 */
final class TlsHandshakeGuard extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(TlsHandshakeGuard.class);
    private static final int MAX_REASON_CHARS = 200;

    private enum State { HANDSHAKING, ESTABLISHED, FAILED }

    private final FrontendListener listener;
    private final WarningRateLimiter warnings;
    private final AuthenticationAudit audit;
    private State state = State.HANDSHAKING;

    /** @param audit where refused handshakes are reported: off on a listener that verifies no certificates */
    TlsHandshakeGuard(FrontendListener listener, WarningRateLimiter warnings, AuthenticationAudit audit) {
        this.listener = listener;
        this.warnings = warnings;
        this.audit = audit;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof SslHandshakeCompletionEvent completion && state == State.HANDSHAKING) {
            if (completion.isSuccess()) {
                state = State.ESTABLISHED;
            } else {
                failed(ctx, completion.cause());
            }
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        switch (state) {
            // Before the handshake completes only the SslHandler and the socket can fail: a handshake failure.
            case HANDSHAKING -> failed(ctx, cause);
            // The connection is closing because of a failure already reported.
            case FAILED -> LOG.debug("After a failed TLS handshake with {}: {}", ctx.channel().remoteAddress(),
                    cause.toString());
            case ESTABLISHED -> ctx.fireExceptionCaught(cause);
        }
    }

    private void failed(ChannelHandlerContext ctx, Throwable cause) {
        state = State.FAILED;
        Throwable root = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
        String reason = reason(root);
        listener.tlsHandshakeFailed(reason);
        if ("rejected".equals(reason)) {
            audit.refused(AuthenticationAudit.TLS, String.valueOf(ctx.channel().remoteAddress()), null, null);
        }
        if ("closed".equals(reason)) {
            // Load balancer and port probes connect and close without a handshake: not worth a warning.
            LOG.info("Client {} closed the connection before completing the TLS handshake ({})",
                    ctx.channel().remoteAddress(), root.toString());
        } else {
            warnings.warn(LOG, "tls " + reason, ctx.channel().remoteAddress(),
                    "TLS handshake with client {} failed ({}): {}", ctx.channel().remoteAddress(), reason,
                    describe(reason, root));
        }
        ctx.close();
    }

    /** A small fixed set, used as the metric's {@code reason} tag. */
    private static String reason(Throwable root) {
        if (root instanceof NotSslRecordException) {
            return "not_tls";
        }
        if (root instanceof SslHandshakeTimeoutException) {
            return "timeout";
        }
        if (root instanceof SSLException || !(root instanceof IOException)) {
            return "rejected";
        }
        // The peer closed or reset the connection mid-handshake.
        return "closed";
    }

    private static String describe(String reason, Throwable root) {
        if ("not_tls".equals(reason)) {
            // Netty's message carries a hex dump of the whole plaintext request.
            return "the client did not speak TLS (a plaintext Kafka client needs security.protocol=SSL)";
        }
        String message = String.valueOf(root.getMessage());
        return message.length() > MAX_REASON_CHARS ? message.substring(0, MAX_REASON_CHARS) + "..." : message;
    }
}
