package io.leasehold.proxy.frontend;

import io.leasehold.proxy.audit.AuthenticationAudit;
import io.leasehold.proxy.logging.ClientText;
import io.leasehold.proxy.logging.WarningRateLimiter;
import io.leasehold.proxy.request.ConnectionPrincipal;
import io.leasehold.proxy.tls.ClientCertificatePrincipals;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Behind the {@link TlsHandshakeGuard} of a listener that verifies client certificates: once the
 * handshake has succeeded, the client's certificate names the connection's principal
 * ({@link ConnectionPrincipal}), before any request is read. A client without a certificate (on a
 * {@code requested} listener) stays anonymous. A certificate no rule maps is refused as a Kafka
 * broker refuses it: the connection is closed, logged with the client's address and counted as a
 * failed handshake with reason {@code no_principal}. SASL on top later replaces the principal.
 * Both outcomes of a presented certificate go to the audit log.
 */
final class CertificatePrincipalHandler extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(CertificatePrincipalHandler.class);

    private final ClientCertificatePrincipals principals;
    private final FrontendListener listener;
    private final WarningRateLimiter warnings;
    private final AuthenticationAudit audit;

    CertificatePrincipalHandler(ClientCertificatePrincipals principals, FrontendListener listener,
                                WarningRateLimiter warnings, AuthenticationAudit audit) {
        this.principals = principals;
        this.listener = listener;
        this.warnings = warnings;
        this.audit = audit;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof SslHandshakeCompletionEvent completion && completion.isSuccess()) {
            name(ctx);
            // Its one job is done: later reads pass by without it.
            ctx.pipeline().remove(this);
        }
        ctx.fireUserEventTriggered(evt);
    }

    private void name(ChannelHandlerContext ctx) {
        Certificate[] chain;
        try {
            chain = ctx.pipeline().get(SslHandler.class).engine().getSession().getPeerCertificates();
        } catch (SSLPeerUnverifiedException e) {
            return;
        }
        X509Certificate certificate = (X509Certificate) chain[0];
        String remote = String.valueOf(ctx.channel().remoteAddress());
        try {
            KafkaPrincipal principal = principals.principalOf(certificate);
            ConnectionPrincipal.set(ctx.channel(), principal);
            audit.accepted(AuthenticationAudit.TLS, principal, remote, null);
        } catch (ClientCertificatePrincipals.UnmappableCertificateException e) {
            listener.tlsHandshakeFailed("no_principal");
            audit.refused(AuthenticationAudit.TLS, remote, null, certificate.getSubjectX500Principal().getName());
            warnings.warn(LOG, "tls no_principal", ctx.channel().remoteAddress(),
                    "Closing client {}: its certificate ({}) names no principal: {}", ctx.channel().remoteAddress(),
                    ClientText.escape(certificate.getSubjectX500Principal().getName()),
                    ClientText.escape(e.getMessage()));
            ctx.close();
        }
    }
}
