package io.leasehold.proxy.security;

import java.util.Set;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerToken;
import org.jose4j.jwt.JwtClaims;
import org.jose4j.jwt.MalformedClaimException;
import org.jose4j.jwt.consumer.InvalidJwtException;
import org.jose4j.jwt.consumer.JwtConsumerBuilder;

/**
 * A JWT as kafka-clients' OAUTHBEARER login holds it, its subject and expiry read unverified
 * (only the proxy checks tokens), for the tests' login callback handlers.
 */
record TestBearerToken(String value, long lifetimeMs, String principalName) implements OAuthBearerToken {
    /** Reads {@code jwt}'s subject and expiry. */
    static TestBearerToken of(String jwt) {
        try {
            JwtClaims claims = new JwtConsumerBuilder().setSkipAllValidators().setDisableRequireSignature()
                    .setSkipSignatureVerification().build().processToClaims(jwt);
            return new TestBearerToken(jwt, claims.getExpirationTime().getValueInMillis(), claims.getSubject());
        } catch (InvalidJwtException | MalformedClaimException e) {
            throw new IllegalArgumentException("not a JWT: " + e.getMessage(), e);
        }
    }

    @Override
    public Set<String> scope() {
        return Set.of();
    }

    @Override
    public Long startTimeMs() {
        return null;
    }
}
