package io.leasehold.proxy.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jose4j.jwk.JsonWebKey;
import org.jose4j.jwk.JsonWebKeySet;
import org.jose4j.jwk.RsaJsonWebKey;
import org.jose4j.jwk.RsaJwkGenerator;
import org.jose4j.jws.AlgorithmIdentifiers;
import org.jose4j.jws.JsonWebSignature;
import org.jose4j.jwt.JwtClaims;
import org.jose4j.jwt.NumericDate;
import org.jose4j.lang.JoseException;

/**
 * A test identity provider: RSA signing keys (jose4j), the JWKS of their public halves, and signed
 * JWTs with chosen claims. {@link #ISSUER} and {@link #AUDIENCE} are what the test proxies expect.
 */
public final class TestTokens {
    public static final String ISSUER = "https://idp.leasehold.test";
    public static final String AUDIENCE = "leasehold-proxy";

    private final List<RsaJsonWebKey> published = new ArrayList<>();

    /** A key pair named {@code keyId}, not yet in the JWKS. */
    public static RsaJsonWebKey newKey(String keyId) {
        try {
            RsaJsonWebKey key = RsaJwkGenerator.generateJwk(2048);
            key.setKeyId(keyId);
            key.setUse("sig");
            return key;
        } catch (JoseException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Adds {@code key}'s public half to the JWKS this provider publishes. */
    public TestTokens publish(RsaJsonWebKey key) {
        published.add(key);
        return this;
    }

    /** Writes the published public keys to {@code file} as a JWKS. */
    public Path writeJwks(Path file) throws IOException {
        return Files.writeString(file, jwks());
    }

    /** The published public keys as a JWKS document. */
    public String jwks() {
        List<JsonWebKey> publicKeys = new ArrayList<>();
        for (RsaJsonWebKey key : published) {
            try {
                publicKeys.add(JsonWebKey.Factory.newJwk(key.toJson(JsonWebKey.OutputControlLevel.PUBLIC_ONLY)));
            } catch (JoseException e) {
                throw new IllegalStateException(e);
            }
        }
        return new JsonWebKeySet(publicKeys).toJson(JsonWebKey.OutputControlLevel.PUBLIC_ONLY);
    }

    /** The claims of a good token for {@code subject}, valid for an hour. */
    public static JwtClaims claims(String subject) {
        JwtClaims claims = new JwtClaims();
        claims.setSubject(subject);
        claims.setIssuer(ISSUER);
        claims.setAudience(AUDIENCE);
        claims.setIssuedAtToNow();
        claims.setNotBeforeMinutesInThePast(1);
        claims.setExpirationTime(NumericDate.fromSeconds(Instant.now().plus(Duration.ofHours(1)).getEpochSecond()));
        return claims;
    }

    /** {@code claims} signed RS256 by {@code key}, in compact form. */
    public static String sign(JwtClaims claims, RsaJsonWebKey key) {
        JsonWebSignature jws = new JsonWebSignature();
        jws.setPayload(claims.toJson());
        jws.setKey(key.getPrivateKey());
        jws.setKeyIdHeaderValue(key.getKeyId());
        jws.setAlgorithmHeaderValue(AlgorithmIdentifiers.RSA_USING_SHA256);
        try {
            return jws.getCompactSerialization();
        } catch (JoseException e) {
            throw new IllegalStateException(e);
        }
    }
}
