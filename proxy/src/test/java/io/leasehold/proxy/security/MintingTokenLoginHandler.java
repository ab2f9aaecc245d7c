package io.leasehold.proxy.security;

import io.leasehold.proxy.testing.TestTokens;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.auth.login.AppConfigurationEntry;
import org.apache.kafka.common.security.auth.AuthenticateCallbackHandler;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerTokenCallback;
import org.jose4j.jwk.JsonWebKey;
import org.jose4j.jwk.RsaJsonWebKey;
import org.jose4j.jwt.JwtClaims;
import org.jose4j.jwt.NumericDate;
import org.jose4j.lang.JoseException;

/**
 * A kafka-clients OAUTHBEARER login callback handler for tests that plays a token endpoint: each
 * login, and each of kafka-clients' background refreshes, gets a new JWT for the JAAS option
 * {@code subject}, valid for {@code lifetimeSeconds}, signed by the private JWK given base64url
 * encoded in {@code signingKey} (see {@link #jaasConfig}).
 */
public final class MintingTokenLoginHandler implements AuthenticateCallbackHandler {
    private RsaJsonWebKey key;
    private String subject;
    private Duration lifetime;

    /** The {@code sasl.jaas.config} for tokens of {@code subject} signed by {@code key}, each valid for {@code lifetime}. */
    static String jaasConfig(RsaJsonWebKey key, String subject, Duration lifetime) {
        String encoded = Base64.getUrlEncoder().withoutPadding().encodeToString(
                key.toJson(JsonWebKey.OutputControlLevel.INCLUDE_PRIVATE).getBytes(StandardCharsets.UTF_8));
        return "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required signingKey=\"" + encoded
                + "\" subject=\"" + subject + "\" lifetimeSeconds=\"" + lifetime.toSeconds() + "\";";
    }

    @Override
    public void configure(Map<String, ?> configs, String mechanism, List<AppConfigurationEntry> entries) {
        Map<String, ?> options = entries.get(0).getOptions();
        try {
            key = (RsaJsonWebKey) JsonWebKey.Factory.newJwk(new String(Base64.getUrlDecoder().decode(
                    (String) options.get("signingKey")), StandardCharsets.UTF_8));
        } catch (JoseException e) {
            throw new IllegalArgumentException("signingKey is not a JWK: " + e.getMessage(), e);
        }
        subject = (String) options.get("subject");
        lifetime = Duration.ofSeconds(Long.parseLong((String) options.get("lifetimeSeconds")));
    }

    @Override
    public void handle(Callback[] callbacks) throws UnsupportedCallbackException {
        for (Callback callback : callbacks) {
            if (callback instanceof OAuthBearerTokenCallback tokenCallback) {
                JwtClaims claims = TestTokens.claims(subject);
                claims.setExpirationTime(NumericDate.fromMilliseconds(Instant.now().plus(lifetime).toEpochMilli()));
                tokenCallback.token(TestBearerToken.of(TestTokens.sign(claims, key)));
            } else {
                throw new UnsupportedCallbackException(callback);
            }
        }
    }

    @Override
    public void close() {
    }
}
