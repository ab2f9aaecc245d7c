package io.leasehold.proxy.security;

import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.auth.login.AppConfigurationEntry;
import org.apache.kafka.common.security.auth.AuthenticateCallbackHandler;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerToken;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerTokenCallback;
import org.jose4j.jwt.JwtClaims;
import org.jose4j.jwt.consumer.InvalidJwtException;
import org.jose4j.jwt.consumer.JwtConsumerBuilder;

/**
 * A kafka-clients OAUTHBEARER login callback handler for tests: hands out the JWT given as the
 * JAAS option {@code token} (as a token endpoint would), reading its subject and expiry unverified
 * since only the proxy checks it.
 */
public final class FixedTokenLoginHandler implements AuthenticateCallbackHandler {
    private OAuthBearerToken token;

    @Override
    public void configure(Map<String, ?> configs, String mechanism, List<AppConfigurationEntry> entries) {
        String jwt = (String) entries.get(0).getOptions().get("token");
        try {
            JwtClaims claims = new JwtConsumerBuilder().setSkipAllValidators().setDisableRequireSignature()
                    .setSkipSignatureVerification().build().processToClaims(jwt);
            long expiry = claims.getExpirationTime().getValueInMillis();
            String subject = claims.getSubject();
            token = new OAuthBearerToken() {
                @Override
                public String value() {
                    return jwt;
                }

                @Override
                public Set<String> scope() {
                    return Set.of();
                }

                @Override
                public long lifetimeMs() {
                    return expiry;
                }

                @Override
                public String principalName() {
                    return subject;
                }

                @Override
                public Long startTimeMs() {
                    return null;
                }
            };
        } catch (InvalidJwtException | org.jose4j.jwt.MalformedClaimException e) {
            throw new IllegalArgumentException("not a JWT: " + e.getMessage(), e);
        }
    }

    @Override
    public void handle(Callback[] callbacks) throws UnsupportedCallbackException {
        for (Callback callback : callbacks) {
            if (callback instanceof OAuthBearerTokenCallback tokenCallback) {
                tokenCallback.token(token);
            } else {
                throw new UnsupportedCallbackException(callback);
            }
        }
    }

    @Override
    public void close() {
    }
}
