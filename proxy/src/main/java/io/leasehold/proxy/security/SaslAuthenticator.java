package io.leasehold.proxy.security;

import io.leasehold.proxy.request.ConnectionPrincipal;
import io.netty.channel.Channel;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;

/**
 * One client connection's SASL state: waiting for a handshake, then for the mechanism's tokens,
 * then authenticated (or failed, after which the connection is closed). A session has a lifetime
 * (KIP-368) when a maximum is configured and/or the credential expires (an OAUTHBEARER token;
 * the shorter wins): the client may then run the exchange again on the same connection, with the
 * same mechanism and as the same user, before its session expires. Authenticating sets
 * the connection's {@link ConnectionPrincipal}. Event-loop confined.
 */
final class SaslAuthenticator {
    enum State { AWAITING_HANDSHAKE, AWAITING_AUTHENTICATE, AUTHENTICATED, FAILED }

    /** KIP-368 re-authentication needs SaslHandshake and SaslAuthenticate v1 or later. */
    private static final short FIRST_REAUTH_VERSION = 1;
    private static final String OAUTHBEARER = "OAUTHBEARER";

    private final SaslSettings settings;
    private final AuthenticationMetrics metrics;
    private final Channel channel;
    private State state = State.AWAITING_HANDSHAKE;
    private String mechanism;
    private SaslExchange exchange;
    private String userName;
    private boolean reauthenticating;
    /** Whether the current exchange's refusal was already counted when it was told to the client. */
    private boolean refusalCounted;
    /** The current session's lifetime, {@code null} when it lasts as long as the connection. */
    private Duration sessionLifetime;
    private long sessionExpiresAtNanos;

    SaslAuthenticator(SaslSettings settings, AuthenticationMetrics metrics, Channel channel) {
        this.settings = settings;
        this.metrics = metrics;
        this.channel = channel;
    }

    State state() {
        return state;
    }

    /** The authenticated user's name; only in state {@link State#AUTHENTICATED}. */
    String userName() {
        return userName;
    }

    /** The mechanism the client chose, or null before a successful handshake. */
    String mechanism() {
        return mechanism;
    }

    /**
     * Whether the session of an authenticated client has passed its lifetime without (or in the
     * middle of) re-authentication.
     */
    boolean expired() {
        return (state == State.AUTHENTICATED || reauthenticating) && sessionLifetime != null
                && System.nanoTime() - sessionExpiresAtNanos > 0;
    }

    /** Whether the authenticated client may run the exchange again: its session has a lifetime. */
    boolean mayReauthenticate() {
        return state == State.AUTHENTICATED && sessionLifetime != null;
    }

    /** Answers a SaslHandshake of {@code version}: the chosen mechanism starts, or the connection fails. */
    SaslHandshakeResponseData handshake(SaslHandshakeRequestData request, short version) {
        SaslHandshakeResponseData response = new SaslHandshakeResponseData().setMechanisms(settings.mechanisms());
        boolean reauthentication = mayReauthenticate() && version >= FIRST_REAUTH_VERSION;
        if (state != State.AWAITING_HANDSHAKE && !reauthentication) {
            fail(mechanism == null ? "none" : mechanism, "wrong_order");
            return response.setErrorCode(Errors.ILLEGAL_SASL_STATE.code());
        }
        String requested = request.mechanism();
        if (!settings.mechanisms().contains(requested) || (reauthentication && !requested.equals(mechanism))) {
            // Re-authentication must keep the mechanism, as Kafka brokers require.
            fail("none", "unsupported_mechanism");
            return response.setErrorCode(Errors.UNSUPPORTED_SASL_MECHANISM.code());
        }
        reauthenticating = reauthentication;
        refusalCounted = false;
        mechanism = requested;
        exchange = exchangeFor(requested);
        state = State.AWAITING_AUTHENTICATE;
        return response.setErrorCode(Errors.NONE.code());
    }

    private SaslExchange exchangeFor(String requested) {
        if (requested.equals(OAUTHBEARER)) {
            return new OAuthBearerExchange(new TokenValidator(settings.oauthBearer(), Clock.systemUTC()));
        }
        UserDirectory users = settings.users().current();
        return ScramMechanism.isScram(requested)
                ? new ScramExchange(ScramMechanism.forMechanismName(requested), users)
                : new PlainExchange(users);
    }

    /**
     * Answers a SaslAuthenticate of {@code version} with the mechanism's next token, or the
     * failure; the last answer carries the session lifetime (v1+) when one is configured.
     */
    SaslAuthenticateResponseData authenticate(SaslAuthenticateRequestData request, short version) {
        SaslAuthenticateResponseData response = new SaslAuthenticateResponseData().setAuthBytes(new byte[0]);
        if (state != State.AWAITING_AUTHENTICATE) {
            fail(mechanism == null ? "none" : mechanism, "wrong_order");
            return response.setErrorCode(Errors.ILLEGAL_SASL_STATE.code())
                    .setErrorMessage("Unexpected SaslAuthenticate request: no SASL handshake is in progress");
        }
        try {
            response.setErrorCode(Errors.NONE.code()).setAuthBytes(step(request.authBytes()));
            if (state == State.AUTHENTICATED && sessionLifetime != null && version >= FIRST_REAUTH_VERSION) {
                response.setSessionLifetimeMs(sessionLifetime.toMillis());
            }
            return response;
        } catch (AuthenticationFailure e) {
            return response.setErrorCode(Errors.SASL_AUTHENTICATION_FAILED.code()).setErrorMessage(e.getMessage());
        }
    }

    /**
     * Feeds one client token to the mechanism chosen by the handshake and returns the server's
     * token; the state becomes {@link State#AUTHENTICATED} when the exchange completes.
     *
     * @throws AuthenticationFailure when the client is refused (the state is then {@link State#FAILED})
     */
    byte[] step(byte[] clientToken) throws AuthenticationFailure {
        if (state != State.AWAITING_AUTHENTICATE) {
            fail(mechanism == null ? "none" : mechanism, "wrong_order");
            throw new AuthenticationFailure("wrong_order", "Unexpected SASL token: no SASL handshake is in progress");
        }
        try {
            byte[] answer = exchange.evaluate(clientToken);
            if (exchange.refusal() != null && !refusalCounted) {
                metrics.failed(mechanism, exchange.refusal());
                refusalCounted = true;
            }
            if (exchange.complete()) {
                String authenticated = exchange.userName();
                if (reauthenticating && !authenticated.equals(userName)) {
                    throw new AuthenticationFailure("principal_changed", "Cannot change principals during "
                            + "re-authentication from " + userName + " to " + authenticated);
                }
                Duration lifetime = lifetime(exchange.credentialExpiry());
                userName = authenticated;
                exchange = null;
                state = State.AUTHENTICATED;
                ConnectionPrincipal.set(channel, ConnectionPrincipal.user(userName));
                sessionLifetime = lifetime;
                if (lifetime != null) {
                    sessionExpiresAtNanos = System.nanoTime() + lifetime.toNanos();
                }
                metrics.succeeded(mechanism);
            }
            return answer == null ? new byte[0] : answer;
        } catch (AuthenticationFailure e) {
            boolean counted = refusalCounted;
            fail(mechanism, e.reason(), !counted);
            throw e;
        }
    }

    /**
     * The session lifetime: the configured maximum, capped by the credential's remaining validity.
     *
     * @throws AuthenticationFailure when the credential has already expired (accepted only within the clock skew)
     */
    private Duration lifetime(Instant credentialExpiry) throws AuthenticationFailure {
        if (credentialExpiry == null) {
            return settings.maxReauth();
        }
        Duration remaining = Duration.between(Instant.now(), credentialExpiry);
        if (remaining.isNegative() || remaining.isZero()) {
            throw new AuthenticationFailure("token_expired", "Authentication failed: the token has expired");
        }
        return settings.maxReauth() == null || remaining.compareTo(settings.maxReauth()) < 0
                ? remaining : settings.maxReauth();
    }

    private void fail(String failedMechanism, String reason) {
        fail(failedMechanism, reason, true);
    }

    private void fail(String failedMechanism, String reason, boolean count) {
        state = State.FAILED;
        exchange = null;
        if (count) {
            metrics.failed(failedMechanism, reason);
        }
    }
}
