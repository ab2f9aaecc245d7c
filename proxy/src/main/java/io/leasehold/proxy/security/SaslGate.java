package io.leasehold.proxy.security;

import io.leasehold.proxy.audit.AuthenticationAudit;
import io.leasehold.proxy.protocol.FrameCap;
import io.leasehold.proxy.protocol.KafkaMessages;
import io.leasehold.proxy.protocol.MalformedRequestException;
import io.leasehold.proxy.protocol.RequestFrame;
import io.leasehold.proxy.request.ClientContext;
import io.leasehold.proxy.request.ConnectionPrincipal;
import io.leasehold.proxy.request.RequestHandler;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelPipeline;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCounted;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SASL in front of the dispatcher, for a listener that requires it. Before a connection has
 * authenticated, only ApiVersions (answered by the router, with the SASL APIs added) and the
 * SASL APIs are served; any other request closes the connection, as a Kafka broker does. A
 * failed exchange is answered with the protocol's error and then the connection is closed.
 *
 * <p>With {@code listener.sasl.connectionsMaxReauth}, or an OAUTHBEARER token's expiry, the
 * session lifetime goes to the client in the last SaslAuthenticate answer; an authenticated client may then run the SASL exchange
 * again (KIP-368), and the first request after its session expired closes the connection.
 *
 * <p>Each connection's {@link SaslAuthenticator} is kept on its channel. Requests arrive here in
 * connection order on the event loop and SASL answers are computed at once, so the state moves
 * in request order while responses still go through the connection's response sequencer.
 */
public final class SaslGate implements RequestHandler {
    /**
     * Largest request a client may send before it has authenticated (Kafka's default
     * {@code sasl.server.max.receive.size}): SASL tokens are small.
     */
    public static final int MAX_UNAUTHENTICATED_BYTES = 512 * 1024;
    /** After SaslHandshake v0 (not v1) the tokens come as bare frames, without SaslAuthenticate. */
    private static final short FIRST_HANDSHAKE_WITH_AUTHENTICATE = 1;

    private static final Logger LOG = LoggerFactory.getLogger(SaslGate.class);
    private static final AttributeKey<SaslAuthenticator> AUTHENTICATOR =
            AttributeKey.valueOf(SaslGate.class, "authenticator");

    private final RequestHandler next;
    private final SaslSettings settings;
    private final AuthenticationMetrics metrics;
    private final AuthenticationAudit audit;

    /** A gate that keeps no audit log. */
    public SaslGate(RequestHandler next, SaslSettings settings, AuthenticationMetrics metrics) {
        this(next, settings, metrics, AuthenticationAudit.off());
    }

    /** @param audit where each authentication's outcome is reported */
    public SaslGate(RequestHandler next, SaslSettings settings, AuthenticationMetrics metrics,
                    AuthenticationAudit audit) {
        this.next = next;
        this.settings = settings;
        this.metrics = metrics;
        this.audit = audit;
    }

    @Override
    public CompletableFuture<ReferenceCounted> handle(RequestFrame request, ClientContext client) {
        SaslAuthenticator authenticator = authenticatorOf(client.channel());
        ApiKeys api = request.apiKey();
        boolean sasl = api == ApiKeys.SASL_HANDSHAKE || api == ApiKeys.SASL_AUTHENTICATE;
        boolean authenticated = authenticator.state() == SaslAuthenticator.State.AUTHENTICATED;
        boolean expired = authenticator.expired();
        // A failed connection is closing: requests it pipelined behind the failure are not served,
        // ApiVersions included (a failed re-authentication would otherwise reopen an expired session to it).
        boolean failed = authenticator.state() == SaslAuthenticator.State.FAILED;
        if (api == ApiKeys.API_VERSIONS && !expired && !failed
                && (authenticated || request.body().remaining() <= MAX_UNAUTHENTICATED_BYTES)) {
            return withSaslApis(request, client);
        }
        if (authenticated && !sasl && !expired) {
            return next.handle(request, client);
        }
        try {
            if (authenticated && !sasl) {
                return refuse("session_expired", request + ": the SASL session of " + authenticator.userName()
                        + " expired without re-authentication (listener.sasl.connectionsMaxReauth or the "
                        + "token's expiry)");
            }
            if (authenticated && !authenticator.mayReauthenticate()) {
                return refuse("unexpected_sasl", request + " after the connection authenticated as "
                        + authenticator.userName() + " (re-authentication is off)");
            }
            if (request.body().remaining() > MAX_UNAUTHENTICATED_BYTES) {
                return refuse("oversized", request + " with " + request.body().remaining()
                        + " body bytes before authentication (at most " + MAX_UNAUTHENTICATED_BYTES + ")");
            }
            if (!sasl || failed) {
                return refuse("unauthenticated", request + " before SASL authentication");
            }
            ApiMessage answer = api == ApiKeys.SASL_HANDSHAKE
                    ? authenticator.handshake((SaslHandshakeRequestData) request.decodeBody(), request.version())
                    : authenticator.authenticate((SaslAuthenticateRequestData) request.decodeBody(),
                            request.version());
            ByteBuf response = KafkaMessages.encodeResponse(client.alloc(), api, request.version(),
                    request.correlationId(), answer);
            if (api == ApiKeys.SASL_HANDSHAKE && request.version() < FIRST_HANDSHAKE_WITH_AUTHENTICATE
                    && authenticator.state() == SaslAuthenticator.State.AWAITING_AUTHENTICATE) {
                // The connection's request handler is last in the pipeline; bare tokens are caught just before it.
                ChannelPipeline pipeline = client.channel().pipeline();
                pipeline.addBefore(pipeline.lastContext().name(), "sasl-raw-tokens",
                        new RawSaslTokens(authenticator, client.remote(), request.header().clientId(), audit));
            }
            audited(request, client, authenticator);
            if (authenticator.state() == SaslAuthenticator.State.FAILED) {
                LOG.info("SASL authentication of client {} failed ({} {}); closing the connection", client.remote(),
                        api.name, authenticator.mechanism() == null ? "" : "with " + authenticator.mechanism());
                closeAfterResponses(client.channel());
            }
            return CompletableFuture.completedFuture(response);
        } catch (MalformedRequestException e) {
            return CompletableFuture.failedFuture(e);
        } finally {
            request.release();
        }
    }

    /**
     * Reports a finished SaslAuthenticate exchange (accepted as the user it authenticated as, or
     * refused), and a SaslHandshake refused for its mechanism.
     */
    private void audited(RequestFrame request, ClientContext client, SaslAuthenticator authenticator) {
        SaslAuthenticator.State state = authenticator.state();
        String clientId = request.header().clientId();
        if (state == SaslAuthenticator.State.FAILED) {
            audit.refused(request.apiKey().name, client.remote(), clientId, null);
        } else if (state == SaslAuthenticator.State.AUTHENTICATED && request.apiKey() == ApiKeys.SASL_AUTHENTICATE) {
            audit.accepted(ApiKeys.SASL_AUTHENTICATE.name, ConnectionPrincipal.user(authenticator.userName()),
                    client.remote(), clientId);
        }
    }

    /** The cap on frames before authentication, for the listener's frame decoder. */
    public FrameCap frameCap() {
        return new UnauthenticatedFrameCap();
    }

    /** Whether {@code channel} has authenticated and is not in the middle of re-authenticating. */
    static boolean authenticated(Channel channel) {
        SaslAuthenticator authenticator = channel.attr(AUTHENTICATOR).get();
        return authenticator != null && authenticator.state() == SaslAuthenticator.State.AUTHENTICATED;
    }

    private SaslAuthenticator authenticatorOf(Channel channel) {
        SaslAuthenticator authenticator = channel.attr(AUTHENTICATOR).get();
        if (authenticator == null) {
            authenticator = new SaslAuthenticator(settings, metrics, channel);
            channel.attr(AUTHENTICATOR).set(authenticator);
        }
        return authenticator;
    }

    /** The router's ApiVersions answer plus the SASL APIs, which the proxy serves itself. */
    private CompletableFuture<ReferenceCounted> withSaslApis(RequestFrame request, ClientContext client) {
        short version = request.version();
        int correlationId = request.correlationId();
        CompletableFuture<ReferenceCounted> answer = next.handle(request, client);
        if (version > ApiKeys.API_VERSIONS.latestVersion()) {
            // The router answers an unknown version with a v0 error telling the client to retry lower.
            return answer;
        }
        return answer.thenApply(response -> {
            ByteBuf frame = (ByteBuf) response;
            try {
                ApiVersionsResponseData data = KafkaMessages.decodeResponse(frame, ApiKeys.API_VERSIONS, version);
                data.apiKeys().add(new ApiVersion().setApiKey(ApiKeys.SASL_HANDSHAKE.id)
                        .setMinVersion(ApiKeys.SASL_HANDSHAKE.oldestVersion())
                        .setMaxVersion(ApiKeys.SASL_HANDSHAKE.latestVersion()));
                data.apiKeys().add(new ApiVersion().setApiKey(ApiKeys.SASL_AUTHENTICATE.id)
                        .setMinVersion(ApiKeys.SASL_AUTHENTICATE.oldestVersion())
                        .setMaxVersion(ApiKeys.SASL_AUTHENTICATE.latestVersion()));
                return KafkaMessages.encodeResponse(client.alloc(), ApiKeys.API_VERSIONS, version, correlationId, data);
            } finally {
                frame.release();
            }
        });
    }

    /**
     * Closes the connection once everything already written (the failure response among it)
     * has left: an empty write at the head of the pipeline completes after all earlier writes.
     * It runs after the current request's response has been handed to the sequencer.
     */
    private static void closeAfterResponses(Channel channel) {
        channel.eventLoop().execute(() -> {
            if (channel.isActive()) {
                channel.pipeline().firstContext().writeAndFlush(Unpooled.EMPTY_BUFFER)
                        .addListener(ChannelFutureListener.CLOSE);
            }
        });
    }

    private static CompletableFuture<ReferenceCounted> refuse(String reason, String message) {
        return CompletableFuture.failedFuture(new MalformedRequestException(reason, message, null));
    }
}
