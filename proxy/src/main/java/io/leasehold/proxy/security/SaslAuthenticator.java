package io.leasehold.proxy.security;

import io.netty.channel.Channel;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;

/**
 * One client connection's SASL state: waiting for a handshake, then for the mechanism's tokens,
 * then authenticated (or failed, after which the connection is closed). Authenticating sets the
 * connection's {@link ConnectionPrincipal}. Event-loop confined.
 */
final class SaslAuthenticator {
    enum State { AWAITING_HANDSHAKE, AWAITING_AUTHENTICATE, AUTHENTICATED, FAILED }

    private final SaslSettings settings;
    private final AuthenticationMetrics metrics;
    private final Channel channel;
    private State state = State.AWAITING_HANDSHAKE;
    private String mechanism;
    private SaslExchange exchange;
    private String userName;

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

    /** Answers a SaslHandshake: the chosen mechanism starts, or the connection fails. */
    SaslHandshakeResponseData handshake(SaslHandshakeRequestData request) {
        SaslHandshakeResponseData response = new SaslHandshakeResponseData().setMechanisms(settings.mechanisms());
        if (state != State.AWAITING_HANDSHAKE) {
            fail("none", "wrong_order");
            return response.setErrorCode(Errors.ILLEGAL_SASL_STATE.code());
        }
        String requested = request.mechanism();
        if (!settings.mechanisms().contains(requested)) {
            fail("none", "unsupported_mechanism");
            return response.setErrorCode(Errors.UNSUPPORTED_SASL_MECHANISM.code());
        }
        mechanism = requested;
        UserDirectory users = settings.users().current();
        exchange = ScramMechanism.isScram(requested)
                ? new ScramExchange(ScramMechanism.forMechanismName(requested), users)
                : new PlainExchange(users);
        state = State.AWAITING_AUTHENTICATE;
        return response.setErrorCode(Errors.NONE.code());
    }

    /** Answers a SaslAuthenticate with the mechanism's next token, or the failure. */
    SaslAuthenticateResponseData authenticate(SaslAuthenticateRequestData request) {
        SaslAuthenticateResponseData response = new SaslAuthenticateResponseData().setAuthBytes(new byte[0]);
        if (state != State.AWAITING_AUTHENTICATE) {
            fail(mechanism == null ? "none" : mechanism, "wrong_order");
            return response.setErrorCode(Errors.ILLEGAL_SASL_STATE.code())
                    .setErrorMessage("Unexpected SaslAuthenticate request: no SASL handshake is in progress");
        }
        try {
            return response.setErrorCode(Errors.NONE.code()).setAuthBytes(step(request.authBytes()));
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
            if (exchange.complete()) {
                userName = exchange.userName();
                exchange = null;
                state = State.AUTHENTICATED;
                ConnectionPrincipal.set(channel, ConnectionPrincipal.user(userName));
                metrics.succeeded(mechanism);
            }
            return answer == null ? new byte[0] : answer;
        } catch (AuthenticationFailure e) {
            fail(mechanism, e.reason());
            throw e;
        }
    }

    private void fail(String failedMechanism, String reason) {
        state = State.FAILED;
        exchange = null;
        metrics.failed(failedMechanism, reason);
    }
}
