package io.leasehold.proxy.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The {@code listener.sasl.oauthbearer} keys: defaults, the environment, and every inconsistency named. */
class OAuthBearerConfigTest {

    private static final String REST = """
            etcd: { endpoints: ["http://127.0.0.1:2379"] }
            backends: { bootstrap: ["127.0.0.1:19092"] }
            """;

    private final ConfigLoader loader = new ConfigLoader(Map.of());

    private static String withSasl(String sasl) {
        return "listener:\n  advertisedHost: kafka\n  sasl:\n" + sasl + REST;
    }

    @Test
    void aJwksFileWithDefaultsNeedsNoUsersFile() throws ConfigException {
        ProxyConfig config = loader.parse(withSasl("""
                    mechanisms: [OAUTHBEARER]
                    oauthbearer: { jwksFile: /etc/leasehold/jwks.json }
                """), "config.yaml");

        assertThat(config.sasl().usersFile()).isNull();
        assertThat(config.sasl().oauthbearer()).isEqualTo(new ProxyConfig.OAuthBearer(
                Path.of("/etc/leasehold/jwks.json"), null, null, Duration.ofMinutes(5), Duration.ofSeconds(10), null,
                List.of(), "sub", Duration.ofSeconds(30)));
    }

    @Test
    void everyKeyIsReadFromYamlOrTheEnvironment() throws ConfigException {
        ProxyConfig config = new ConfigLoader(Map.of("LEASEHOLD_LISTENER_SASL_OAUTHBEARER_AUDIENCE", "kafka,proxy"))
                .parse(withSasl("""
                    mechanisms: [SCRAM-SHA-512, OAUTHBEARER]
                    usersFile: /etc/leasehold/users.yaml
                    oauthbearer:
                      jwksUrl: https://idp.example.com/keys
                      jwksCaFile: /etc/leasehold/idp-ca.pem
                      jwksRefreshInterval: 1m
                      jwksFetchTimeout: 3s
                      issuer: https://idp.example.com
                      principalClaim: preferred_username
                      clockSkew: 10s
                """), "config.yaml");

        assertThat(config.sasl().oauthbearer()).isEqualTo(new ProxyConfig.OAuthBearer(null,
                URI.create("https://idp.example.com/keys"), Path.of("/etc/leasehold/idp-ca.pem"), Duration.ofMinutes(1),
                Duration.ofSeconds(3), "https://idp.example.com", List.of("kafka", "proxy"), "preferred_username",
                Duration.ofSeconds(10)));
    }

    @Test
    void inconsistentKeysAreRefusedWithTheKeyAndTheReason() {
        assertThatThrownBy(() -> loader.parse(withSasl("""
                    mechanisms: [OAUTHBEARER]
                    usersFile: /etc/leasehold/users.yaml
                    oauthbearer: { jwksCaFile: /ca.pem, audience: [] }
                """), "config.yaml"))
                .hasMessageContaining("config.yaml: listener.sasl.oauthbearer.jwksFile: exactly one of "
                        + "listener.sasl.oauthbearer.jwksFile and listener.sasl.oauthbearer.jwksUrl is required")
                .hasMessageContaining("listener.sasl.oauthbearer.jwksCaFile: is only used with "
                        + "listener.sasl.oauthbearer.jwksUrl")
                .hasMessageContaining("listener.sasl.oauthbearer.audience: expected a non-empty list of strings")
                .hasMessageContaining("listener.sasl.usersFile: is only used by PLAIN and SCRAM");
        assertThatThrownBy(() -> loader.parse(withSasl("""
                    mechanisms: [OAUTHBEARER]
                    oauthbearer: { jwksFile: /jwks.json, jwksUrl: "http://idp/keys" }
                """), "config.yaml"))
                .hasMessageContaining("listener.sasl.oauthbearer.jwksUrl: expected an https:// URL, got \"http://idp/keys\"");
        assertThatThrownBy(() -> loader.parse(withSasl("""
                    mechanisms: [PLAIN]
                    usersFile: /u.yaml
                    oauthbearer: { jwksFile: /jwks.json }
                """), "config.yaml"))
                .hasMessageContaining("listener.sasl.oauthbearer.jwksFile: is only used with OAUTHBEARER: add it to "
                        + "listener.sasl.mechanisms");
        assertThatThrownBy(() -> loader.parse(withSasl("""
                    mechanisms: [OAUTHBEARER]
                    oauthbearer: { jwksFile: /jwks.json, clock: 5s }
                """), "config.yaml"))
                .hasMessageContaining("listener.sasl.oauthbearer.clock: unknown key (known keys in "
                        + "listener.sasl.oauthbearer: jwksFile, jwksUrl, jwksCaFile, jwksRefreshInterval, "
                        + "jwksFetchTimeout, issuer, audience, principalClaim, clockSkew)");
    }
}
