package io.leasehold.proxy.security;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.auth.login.AppConfigurationEntry;
import javax.security.sasl.SaslException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.security.auth.AuthenticateCallbackHandler;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerExtensionsValidatorCallback;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerToken;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallback;
import org.apache.kafka.common.security.oauthbearer.internals.OAuthBearerSaslServer;

/**
 * SASL/OAUTHBEARER (RFC 7628) through kafka-clients' own {@link OAuthBearerSaslServer}, which
 * parses the GS2 header and {@code auth=Bearer} key-value pairs and, for a refused token, answers
 * with the {@code {"status":"invalid_token"}} error and waits for the client's %x01 before the
 * exchange fails, as a Kafka broker does. This class only answers its callbacks: the token with
 * the {@link TokenValidator}, and the client's SASL extensions, which are accepted and unused.
 */
final class OAuthBearerExchange implements SaslExchange {
    private static final String INVALID_MESSAGE = "Authentication failed during authentication due to invalid "
            + "credentials with SASL mechanism OAUTHBEARER";

    private final TokenValidator validator;
    private final OAuthBearerSaslServer server = new OAuthBearerSaslServer(new Callbacks());
    private String failure = "bad_message";
    private boolean refused;
    private ValidatedToken validated;

    OAuthBearerExchange(TokenValidator validator) {
        this.validator = validator;
    }

    @Override
    public byte[] evaluate(byte[] clientToken) throws AuthenticationFailure {
        if (refused) {
            // After the error reply only the client's %x01 is expected; whatever comes, the exchange has failed.
            try {
                server.evaluateResponse(clientToken);
            } catch (SaslException | SaslAuthenticationException e) {
                throw new AuthenticationFailure(failure, "Authentication failed: " + e.getMessage() + " ("
                        + failure + ")");
            }
            throw new AuthenticationFailure(failure, INVALID_MESSAGE);
        }
        try {
            byte[] answer = server.evaluateResponse(clientToken);
            refused = !server.isComplete();
            return answer;
        } catch (SaslAuthenticationException e) {
            // The token was valid but the client asked for another authorization id.
            throw new AuthenticationFailure("authorization_id_mismatch", e.getMessage());
        } catch (SaslException e) {
            throw new AuthenticationFailure("bad_message", INVALID_MESSAGE);
        }
    }

    @Override
    public boolean complete() {
        return server.isComplete();
    }

    @Override
    public String userName() {
        return server.getAuthorizationID();
    }

    @Override
    public String refusal() {
        return refused ? failure : null;
    }

    @Override
    public Instant credentialExpiry() {
        return validated.expiresAt();
    }

    private final class Callbacks implements AuthenticateCallbackHandler {
        @Override
        public void configure(Map<String, ?> configs, String mechanism, List<AppConfigurationEntry> entries) {
            // Configured through the constructor.
        }

        @Override
        public void handle(Callback[] callbacks) throws UnsupportedCallbackException {
            for (Callback callback : callbacks) {
                if (callback instanceof OAuthBearerValidatorCallback token) {
                    check(token);
                } else if (callback instanceof OAuthBearerExtensionsValidatorCallback extensions) {
                    extensions.inputExtensions().map().keySet().forEach(extensions::valid);
                } else {
                    throw new UnsupportedCallbackException(callback);
                }
            }
        }

        private void check(OAuthBearerValidatorCallback callback) {
            try {
                ValidatedToken token = validator.validate(callback.tokenValue());
                validated = token;
                callback.token(new Token(callback.tokenValue(), token));
            } catch (AuthenticationFailure e) {
                failure = e.reason();
                callback.error("invalid_token", null, null);
            }
        }

        @Override
        public void close() {
            // Nothing held.
        }
    }

    /** The validated token in the form kafka-clients' server expects. */
    private record Token(String value, ValidatedToken validated) implements OAuthBearerToken {
        @Override
        public Set<String> scope() {
            return Set.of();
        }

        @Override
        public long lifetimeMs() {
            return validated.expiresAt().toEpochMilli();
        }

        @Override
        public String principalName() {
            return validated.principal();
        }

        @Override
        public Long startTimeMs() {
            return null;
        }
    }
}
