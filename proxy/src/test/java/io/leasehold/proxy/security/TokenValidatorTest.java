package io.leasehold.proxy.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.proxy.files.MountedFileWatcher;
import io.leasehold.proxy.testing.TestTokens;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.jose4j.jwk.RsaJsonWebKey;
import org.jose4j.jws.AlgorithmIdentifiers;
import org.jose4j.jws.JsonWebSignature;
import org.jose4j.jwt.JwtClaims;
import org.jose4j.jwt.NumericDate;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * OAUTHBEARER token checks: a token signed by a key of the JWKS file with the expected issuer
 * and audience names its principal; every other token is refused with its reason.
 */
class TokenValidatorTest {
    private static final RsaJsonWebKey KEY = TestTokens.newKey("key-1");
    private static final RsaJsonWebKey OTHER_KEY = TestTokens.newKey("key-2");

    @TempDir
    Path dir;
    private JwksFile jwks;
    private TokenValidator validator;

    @BeforeEach
    void load() throws Exception {
        jwks = JwksFile.load(new TestTokens().publish(KEY).writeJwks(dir.resolve("jwks.json")));
        validator = validator("sub");
    }

    private TokenValidator validator(String principalClaim) {
        return new TokenValidator(new OAuthBearerSettings(jwks, TestTokens.ISSUER, List.of(TestTokens.AUDIENCE),
                principalClaim, Duration.ofSeconds(30)), Clock.systemUTC());
    }

    private String refusal(String token) {
        try {
            validator.validate(token);
        } catch (AuthenticationFailure e) {
            return e.reason();
        }
        throw new AssertionError("accepted: " + token);
    }

    @Test
    void aGoodTokenNamesItsSubjectAndExpiry() throws Exception {
        JwtClaims claims = TestTokens.claims("alice");

        ValidatedToken token = validator.validate(TestTokens.sign(claims, KEY));

        assertThat(token.principal()).isEqualTo("alice");
        assertThat(token.expiresAt()).isEqualTo(Instant.ofEpochSecond(claims.getExpirationTime().getValue()));
    }

    @Test
    void theConfiguredClaimNamesThePrincipal() throws Exception {
        JwtClaims claims = TestTokens.claims("alice");
        claims.setStringClaim("preferred_username", "alice.smith");

        assertThat(validator("preferred_username").validate(TestTokens.sign(claims, KEY)).principal())
                .isEqualTo("alice.smith");
        validator = validator("email");
        assertThat(refusal(TestTokens.sign(claims, KEY))).isEqualTo("no_principal");
    }

    @Test
    void expiredNotYetValidWrongIssuerWrongAudienceAndForeignSignaturesAreRefused() throws Exception {
        JwtClaims expired = TestTokens.claims("alice");
        expired.setExpirationTime(NumericDate.fromSeconds(Instant.now().minusSeconds(120).getEpochSecond()));
        JwtClaims early = TestTokens.claims("alice");
        early.setNotBefore(NumericDate.fromSeconds(Instant.now().plusSeconds(600).getEpochSecond()));
        JwtClaims issuer = TestTokens.claims("alice");
        issuer.setIssuer("https://evil.test");
        JwtClaims audience = TestTokens.claims("alice");
        audience.setAudience("someone-else");
        JwtClaims noExpiry = TestTokens.claims("alice");
        noExpiry.unsetClaim("exp");

        assertThat(refusal(TestTokens.sign(expired, KEY))).isEqualTo("token_expired");
        assertThat(refusal(TestTokens.sign(early, KEY))).isEqualTo("token_not_yet_valid");
        assertThat(refusal(TestTokens.sign(issuer, KEY))).isEqualTo("bad_issuer");
        assertThat(refusal(TestTokens.sign(audience, KEY))).isEqualTo("bad_audience");
        assertThat(refusal(TestTokens.sign(noExpiry, KEY))).isEqualTo("bad_token");
        assertThat(refusal(TestTokens.sign(TestTokens.claims("alice"), OTHER_KEY))).as("a key not in the JWKS")
                .isEqualTo("bad_signature");
        String good = TestTokens.sign(TestTokens.claims("alice"), KEY);
        String[] parts = good.split("\\.");
        String tampered = parts[0] + "." + TestTokens.sign(TestTokens.claims("admin"), KEY).split("\\.")[1] + "."
                + parts[2];
        assertThat(refusal(tampered)).as("a payload swapped under a valid signature").isEqualTo("bad_signature");
    }

    @Test
    void tokensWithoutAPublicKeySignatureAreRefused() throws Exception {
        JsonWebSignature none = new JsonWebSignature();
        none.setPayload(TestTokens.claims("alice").toJson());
        none.setAlgorithmConstraints(org.jose4j.jwa.AlgorithmConstraints.NO_CONSTRAINTS);
        none.setAlgorithmHeaderValue(AlgorithmIdentifiers.NONE);
        JsonWebSignature hmac = new JsonWebSignature();
        hmac.setPayload(TestTokens.claims("alice").toJson());
        hmac.setAlgorithmHeaderValue(AlgorithmIdentifiers.HMAC_SHA256);
        hmac.setKeyIdHeaderValue("key-1");
        hmac.setKey(new org.jose4j.keys.HmacKey(new byte[32]));

        assertThat(refusal(none.getCompactSerialization())).isIn("bad_token", "bad_signature");
        assertThat(refusal(hmac.getCompactSerialization())).isIn("bad_token", "bad_signature");
        assertThat(refusal("not a jwt")).isEqualTo("bad_token");
        assertThat(refusal("")).isEqualTo("bad_token");
    }

    @Test
    void aRotatedJwksFileIsTakenAndABrokenOneKeepsThePreviousKeysAndBothAreCounted() throws Exception {
        Path file = dir.resolve("jwks.json");
        String byNewKey = TestTokens.sign(TestTokens.claims("alice"), OTHER_KEY);
        assertThat(refusal(byNewKey)).isEqualTo("bad_signature");
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (MountedFileWatcher watcher = new MountedFileWatcher(Duration.ofHours(1))) {
            jwks.keepCurrent(watcher, new JwksMetrics(registry));

            new TestTokens().publish(KEY).publish(OTHER_KEY).writeJwks(file);
            watcher.checkNow();
            assertThat(validator.validate(byNewKey).principal()).isEqualTo("alice");

            Files.writeString(file, "{\"keys\": \"broken\"}");
            watcher.checkNow();
            assertThat(validator.validate(byNewKey).principal()).as("the previous keys stay").isEqualTo("alice");
        }
        assertThat(registry.get("leasehold.jwks.refreshes").tags("source", "file", "outcome", "success").counter()
                .count()).isEqualTo(1);
        assertThat(registry.get("leasehold.jwks.refreshes").tags("source", "file", "outcome", "failure").counter()
                .count()).isEqualTo(1);
        assertThatThrownBy(() -> JwksFile.load(file)).isInstanceOf(JwksException.class)
                .hasMessageContaining(file + ": not a JSON Web Key Set");
        Files.writeString(file, "{\"keys\": []}");
        assertThatThrownBy(() -> JwksFile.load(file)).isInstanceOf(JwksException.class)
                .hasMessageContaining("no public signature key");
    }
}
