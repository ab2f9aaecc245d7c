package io.leasehold.proxy.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.leasehold.proxy.testing.JwksServer;
import io.leasehold.proxy.testing.TestCertificates;
import io.leasehold.proxy.testing.TestTokens;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.jose4j.jwk.JsonWebKey;
import org.jose4j.jwk.RsaJsonWebKey;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code jwksUrl}: signing keys fetched from a real HTTPS server on loopback whose certificate
 * is signed by a test CA given as {@code jwksCaFile}. Tokens are checked against the fetched
 * keys; a key rotated at the URL is taken on the next refresh; a 500, an answer that is not a
 * key set, a server that is gone and a certificate from another CA each keep the last good keys
 * and are counted; before any good fetch every token is refused; a token naming an unknown key
 * id fetches the URL early, but not again within the early-fetch spacing.
 */
class JwksUrlTest {
    private static final RsaJsonWebKey KEY = TestTokens.newKey("key-1");
    private static final RsaJsonWebKey NEXT_KEY = TestTokens.newKey("key-2");
    private static final RsaJsonWebKey UNPUBLISHED_KEY = TestTokens.newKey("key-3");
    private static final Duration NEVER = Duration.ofHours(1);

    @TempDir
    static Path certDir;
    private static TestCertificates certs;
    private static TestCertificates otherCa;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private JwksServer server;
    private JwksUrl jwks;

    @BeforeAll
    static void generateCertificates() throws Exception {
        certs = TestCertificates.generate(certDir.resolve("idp"));
        otherCa = TestCertificates.generate(certDir.resolve("other"));
    }

    @BeforeEach
    void startServer() throws Exception {
        server = JwksServer.start(certs).publish(new TestTokens().publish(KEY));
    }

    @AfterEach
    void stop() {
        if (jwks != null) {
            jwks.close();
        }
        server.close();
    }

    private JwksUrl fetching(Path caFile, Duration refresh, Duration earlyFetchSpacing) throws JwksException {
        jwks = JwksUrl.of(server.url(), caFile, new JwksUrl.Timing(refresh, Duration.ofSeconds(5), earlyFetchSpacing));
        jwks.keepCurrent(null, new JwksMetrics(registry));
        return jwks;
    }

    private TokenValidator validator() {
        return new TokenValidator(new OAuthBearerSettings(jwks, TestTokens.ISSUER, List.of(TestTokens.AUDIENCE), "sub",
                Duration.ofSeconds(30)), Clock.systemUTC());
    }

    private static String token(RsaJsonWebKey key) {
        return TestTokens.sign(TestTokens.claims("alice"), key);
    }

    private String refusal(String token) {
        try {
            validator().validate(token);
        } catch (AuthenticationFailure e) {
            return e.reason();
        }
        throw new AssertionError("accepted: " + token);
    }

    private double fetches(String outcome) {
        Counter counter = registry.find("leasehold.jwks.refreshes").tags("source", "url", "outcome", outcome).counter();
        return counter == null ? 0 : counter.count();
    }

    private List<String> keyIds() {
        return jwks.current().stream().map(JsonWebKey::getKeyId).toList();
    }

    @Test
    void tokensAreVerifiedWithKeysFetchedOverHttpsTrustingTheCaFile() throws Exception {
        fetching(certs.caCert(), NEVER, NEVER);

        await().atMost(Duration.ofSeconds(20)).until(() -> fetches("success") == 1);
        assertThat(validator().validate(token(KEY)).principal()).isEqualTo("alice");
        assertThat(refusal(token(NEXT_KEY))).isEqualTo("bad_signature");
        assertThat(server.requests()).isEqualTo(1);
    }

    @Test
    void aKeyRotatedAtTheUrlIsTakenAfterTheRefreshInterval() throws Exception {
        fetching(certs.caCert(), Duration.ofMillis(500), NEVER);
        await().atMost(Duration.ofSeconds(20)).until(() -> keyIds().equals(List.of("key-1")));

        server.publish(new TestTokens().publish(NEXT_KEY));

        await().atMost(Duration.ofSeconds(20)).until(() -> keyIds().equals(List.of("key-2")));
        assertThat(validator().validate(token(NEXT_KEY)).principal()).isEqualTo("alice");
        assertThat(refusal(token(KEY))).as("the key taken off the URL").isEqualTo("bad_signature");
    }

    @Test
    void aFailedFetchKeepsTheLastGoodKeysAndIsCounted() throws Exception {
        fetching(certs.caCert(), Duration.ofMillis(300), NEVER);
        await().atMost(Duration.ofSeconds(20)).until(() -> fetches("success") >= 1);

        for (Runnable failure : List.<Runnable>of(() -> server.answer(500, "{\"error\": \"down for maintenance\"}"),
                () -> server.answer(200, "<html>not a key set</html>"), () -> server.answer(200, "{\"keys\": []}"),
                server::close)) {
            double failedBefore = fetches("failure");
            failure.run();
            await().atMost(Duration.ofSeconds(20)).until(() -> fetches("failure") > failedBefore);
            assertThat(keyIds()).as("the last good keys stay in force").containsExactly("key-1");
            assertThat(validator().validate(token(KEY)).principal()).isEqualTo("alice");
        }
    }

    @Test
    void aServerCertificateFromAnotherCaIsNotTrustedAndEveryTokenIsRefusedUntilAGoodFetch() throws Exception {
        fetching(otherCa.caCert(), Duration.ofMillis(300), NEVER);

        await().atMost(Duration.ofSeconds(20)).until(() -> fetches("failure") >= 2);
        assertThat(fetches("success")).isZero();
        assertThat(jwks.current()).isEmpty();
        assertThat(refusal(token(KEY))).isEqualTo("no_keys");
    }

    @Test
    void aCaFileThatHoldsNoCertificateIsAClearErrorAtStartUp() throws Exception {
        Path notPem = Files.writeString(certDir.resolve("not-a-ca.pem"), "hello");

        assertThatThrownBy(() -> JwksUrl.of(server.url(), notPem, new JwksUrl.Timing(NEVER, NEVER, NEVER)))
                .isInstanceOf(JwksException.class).hasMessageContaining(notPem.toString())
                .hasMessageContaining("JWKS CA file");
    }

    @Test
    void aTokenNamingAnUnknownKeyIdFetchesTheUrlEarlyAtMostOncePerSpacing() throws Exception {
        Duration spacing = Duration.ofSeconds(3);
        fetching(certs.caCert(), NEVER, spacing);
        await().atMost(Duration.ofSeconds(20)).until(() -> server.requests() == 1 && !jwks.current().isEmpty());
        server.publish(new TestTokens().publish(KEY).publish(NEXT_KEY));
        // The first fetch started under the spacing ago: a key id unknown now does not fetch yet.
        assertThat(refusal(token(NEXT_KEY))).isEqualTo("bad_signature");
        Thread.sleep(spacing.toMillis());

        assertThat(refusal(token(NEXT_KEY))).as("refused while its key is being fetched").isEqualTo("bad_signature");
        await().atMost(Duration.ofSeconds(20)).until(() -> keyIds().contains("key-2"));
        assertThat(validator().validate(token(NEXT_KEY)).principal()).isEqualTo("alice");
        assertThat(server.requests()).isEqualTo(2);

        for (int i = 0; i < 20; i++) {
            assertThat(refusal(token(UNPUBLISHED_KEY))).isEqualTo("bad_signature");
        }
        Thread.sleep(500);
        assertThat(server.requests()).as("no early fetch within the spacing of the last one").isEqualTo(2);
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200)).until(() -> {
            refusal(token(UNPUBLISHED_KEY));
            return server.requests() == 3;
        });
    }
}
