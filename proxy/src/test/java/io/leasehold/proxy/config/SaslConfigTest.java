package io.leasehold.proxy.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The {@code listener.sasl} keys: read from YAML and the environment, and every misuse named. */
class SaslConfigTest {

    private static final String REST = """
            etcd: { endpoints: ["http://127.0.0.1:2379"] }
            backends: { bootstrap: ["127.0.0.1:19092"] }
            """;

    private final ConfigLoader loader = new ConfigLoader(Map.of());

    private static String withListener(String sasl) {
        return "listener:\n  advertisedHost: kafka\n" + sasl + REST;
    }

    @Test
    void mechanismsAndUsersFileTurnSaslOn() throws ConfigException {
        ProxyConfig config = loader.parse(withListener("""
                  sasl:
                    mechanisms: [PLAIN, SCRAM-SHA-512]
                    usersFile: /etc/leasehold/users.yaml
                    connectionsMaxReauth: 1h
                """), "config.yaml");

        assertThat(config.saslRequired()).isTrue();
        assertThat(config.sasl()).isEqualTo(new ProxyConfig.Sasl(List.of("PLAIN", "SCRAM-SHA-512"),
                Path.of("/etc/leasehold/users.yaml"), Duration.ofHours(1)));
    }

    @Test
    void withoutTheSaslSectionTheListenerNeedsNoAuthentication() throws ConfigException {
        assertThat(loader.parse(withListener(""), "config.yaml").saslRequired()).isFalse();
    }

    @Test
    void environmentVariablesSetTheNestedKeys() throws ConfigException {
        ProxyConfig config = new ConfigLoader(Map.of("LEASEHOLD_LISTENER_SASL_MECHANISMS", "SCRAM-SHA-256,PLAIN",
                "LEASEHOLD_LISTENER_SASL_USERS_FILE", "/run/users.yaml")).parse(withListener(""), "config.yaml");

        assertThat(config.sasl()).isEqualTo(new ProxyConfig.Sasl(List.of("SCRAM-SHA-256", "PLAIN"),
                Path.of("/run/users.yaml"), null));
    }

    @Test
    void unknownMechanismsRepeatsUnknownKeysAndAMissingUsersFileAreEachNamed() {
        assertThatThrownBy(() -> loader.parse(withListener("""
                  sasl:
                    mechanisms: [SCRAM-SHA-512, GSSAPI]
                    colour: blue
                """), "config.yaml"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("config.yaml: listener.sasl.mechanisms[1]: expected one of SCRAM-SHA-512, "
                        + "SCRAM-SHA-256, PLAIN, OAUTHBEARER, got \"GSSAPI\"")
                .hasMessageContaining("config.yaml: listener.sasl.colour: unknown key (known keys in listener.sasl: "
                        + "mechanisms, usersFile, connectionsMaxReauth, oauthbearer)")
                .hasMessageContaining("config.yaml: listener.sasl.usersFile: is required with "
                        + "listener.sasl.mechanisms");
        assertThatThrownBy(() -> loader.parse(withListener("""
                  sasl: { mechanisms: [PLAIN, PLAIN], usersFile: /u.yaml }
                """), "config.yaml"))
                .hasMessageContaining("listener.sasl.mechanisms: lists a value more than once");
    }

    @Test
    void aUsersFileOrSessionLifetimeWithoutMechanismsIsRefusedRatherThanIgnored() {
        assertThatThrownBy(() -> loader.parse(withListener("  sasl: { usersFile: /etc/leasehold/users.yaml, "
                + "connectionsMaxReauth: 0s }\n"), "config.yaml"))
                .hasMessageContaining("listener.sasl.usersFile: is only used with SASL: set "
                        + "listener.sasl.mechanisms too")
                .hasMessageContaining("listener.sasl.connectionsMaxReauth: expected a positive duration");
        assertThatThrownBy(() -> loader.parse(withListener("  sasl: { connectionsMaxReauth: 1h }\n"), "config.yaml"))
                .hasMessageContaining("listener.sasl.connectionsMaxReauth: is only used with SASL");
    }

    @Test
    void theListenerStillNamesSaslAmongItsKnownKeys() {
        assertThatThrownBy(() -> loader.parse(withListener("  sasll: {}\n"), "config.yaml"))
                .hasMessageContaining("listener.sasll: unknown key (known keys in listener: host, port, "
                        + "advertisedHost, advertisedPort, tlsCertFile, tlsKeyFile, tlsCaFile, tlsClientAuth, sasl, tlsPrincipal)");
    }
}
