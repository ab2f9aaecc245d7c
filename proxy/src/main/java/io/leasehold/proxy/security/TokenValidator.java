package io.leasehold.proxy.security;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import org.jose4j.jwk.JsonWebKey;
import org.jose4j.jwa.AlgorithmConstraints;
import org.jose4j.jws.AlgorithmIdentifiers;
import org.jose4j.jwt.JwtClaims;
import org.jose4j.jwt.MalformedClaimException;
import org.jose4j.jwt.NumericDate;
import org.jose4j.jwt.consumer.ErrorCodes;
import org.jose4j.jwt.consumer.InvalidJwtException;
import org.jose4j.jwt.consumer.JwtConsumer;
import org.jose4j.jwt.consumer.JwtConsumerBuilder;
import org.jose4j.keys.resolvers.JwksVerificationKeyResolver;
import org.jose4j.lang.UnresolvableKeyException;

/**
 * Checks an OAUTHBEARER token, a signed JWT, with jose4j (the library kafka-clients' own JWT
 * validators use): the signature against the keys in force (asymmetric
 * algorithms only), the expiry and not-before times within the allowed clock skew, the issuer
 * and audience when configured, and takes the principal from the configured claim. Immutable;
 * does no I/O, so it may run on an event loop.
 */
final class TokenValidator {
    /** Public-key algorithms only: "none" and shared-secret HMAC are never accepted. */
    private static final AlgorithmConstraints SIGNATURE_ALGORITHMS = new AlgorithmConstraints(
            AlgorithmConstraints.ConstraintType.PERMIT,
            AlgorithmIdentifiers.RSA_USING_SHA256, AlgorithmIdentifiers.RSA_USING_SHA384,
            AlgorithmIdentifiers.RSA_USING_SHA512, AlgorithmIdentifiers.RSA_PSS_USING_SHA256,
            AlgorithmIdentifiers.RSA_PSS_USING_SHA384, AlgorithmIdentifiers.RSA_PSS_USING_SHA512,
            AlgorithmIdentifiers.ECDSA_USING_P256_CURVE_AND_SHA256,
            AlgorithmIdentifiers.ECDSA_USING_P384_CURVE_AND_SHA384,
            AlgorithmIdentifiers.ECDSA_USING_P521_CURVE_AND_SHA512);

    private final OAuthBearerSettings rules;
    private final Clock clock;

    TokenValidator(OAuthBearerSettings rules, Clock clock) {
        this.rules = rules;
        this.clock = clock;
    }

    /**
     * The token's principal and expiry.
     *
     * @throws AuthenticationFailure with the reason ("token_expired", "bad_signature", ...) when it is not valid
     */
    ValidatedToken validate(String jwt) throws AuthenticationFailure {
        List<JsonWebKey> keys = rules.keys().current();
        if (keys.isEmpty()) {
            throw new AuthenticationFailure("no_keys", "invalid token: no token signing keys are loaded yet");
        }
        JwtClaims claims;
        try {
            claims = consumer(keys).processToClaims(jwt);
        } catch (InvalidJwtException e) {
            if (e.getCause() instanceof UnresolvableKeyException) {
                rules.keys().keyNotFound();
            }
            throw new AuthenticationFailure(reason(e), "invalid token: " + e.getOriginalMessage());
        } catch (RuntimeException e) {
            // jose4j's parsing of hostile input may fail in ways it does not wrap.
            throw new AuthenticationFailure("bad_token", "invalid token: " + e.getClass().getSimpleName());
        }
        Object principal = claims.getClaimValue(rules.principalClaim());
        if (!(principal instanceof String name) || name.isBlank()) {
            throw new AuthenticationFailure("no_principal", "the token has no string claim \""
                    + rules.principalClaim() + "\" to name the principal");
        }
        try {
            return new ValidatedToken(name, Instant.ofEpochMilli(claims.getExpirationTime().getValueInMillis()));
        } catch (MalformedClaimException e) {
            throw new AuthenticationFailure("bad_token", "invalid token: " + e.getMessage());
        }
    }

    private JwtConsumer consumer(List<JsonWebKey> keys) {
        JwtConsumerBuilder builder = new JwtConsumerBuilder()
                .setRequireExpirationTime()
                .setAllowedClockSkewInSeconds(Math.toIntExact(rules.clockSkew().toSeconds()))
                .setEvaluationTime(NumericDate.fromMilliseconds(clock.millis()))
                .setJwsAlgorithmConstraints(SIGNATURE_ALGORITHMS)
                .setVerificationKeyResolver(new JwksVerificationKeyResolver(keys));
        if (rules.issuer() != null) {
            builder.setExpectedIssuer(rules.issuer());
        }
        if (rules.audience().isEmpty()) {
            builder.setSkipDefaultAudienceValidation();
        } else {
            builder.setExpectedAudience(rules.audience().toArray(String[]::new));
        }
        return builder.build();
    }

    /** A metric label from a small fixed set, never from the token. */
    private static String reason(InvalidJwtException e) {
        if (e.hasExpired()) {
            return "token_expired";
        }
        if (e.hasErrorCode(ErrorCodes.NOT_YET_VALID)) {
            return "token_not_yet_valid";
        }
        if (e.hasErrorCode(ErrorCodes.ISSUER_INVALID) || e.hasErrorCode(ErrorCodes.ISSUER_MISSING)) {
            return "bad_issuer";
        }
        if (e.hasErrorCode(ErrorCodes.AUDIENCE_INVALID) || e.hasErrorCode(ErrorCodes.AUDIENCE_MISSING)) {
            return "bad_audience";
        }
        if (e.hasErrorCode(ErrorCodes.SIGNATURE_INVALID) || e.hasErrorCode(ErrorCodes.SIGNATURE_MISSING)
                || e.getCause() instanceof UnresolvableKeyException) {
            return "bad_signature";
        }
        return "bad_token";
    }
}
