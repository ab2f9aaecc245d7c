package io.leasehold.bench.sizing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;

/**
 * How clients reach the proxy's Kafka listener in one column of the sizing table: the
 * {@code LEASEHOLD_*} environment overrides that set the listener up (docs/configuration.md)
 * and the client settings that match them.
 *
 * @param name              the column's name: plaintext, TLS or SASL
 * @param proxyEnvironment  added to the proxy's environment
 * @param clientSettings    added to every producer's and consumer's settings
 */
public record ListenerSecurity(String name, Map<String, String> proxyEnvironment, Map<String, Object> clientSettings) {

    private static final String SASL_USER = "sizing";
    private static final String SASL_PASSWORD = "sizing-password";

    public ListenerSecurity {
        proxyEnvironment = Map.copyOf(proxyEnvironment);
        clientSettings = Map.copyOf(clientSettings);
    }

    /** No TLS, no SASL. */
    public static ListenerSecurity plaintext() {
        return new ListenerSecurity("plaintext", Map.of(), Map.of());
    }

    /**
     * Server-side TLS with a self-signed RSA 2048 certificate for 127.0.0.1 made by the
     * {@code openssl} command line in {@code dir}; clients trust exactly that certificate.
     */
    public static ListenerSecurity tls(Path dir) {
        Path cert = dir.resolve("listener.crt");
        Path key = dir.resolve("listener.key");
        openssl(dir, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key.toString(), "-out", cert.toString());
        return new ListenerSecurity("TLS",
                Map.of("LEASEHOLD_LISTENER_TLS_CERT_FILE", cert.toString(), "LEASEHOLD_LISTENER_TLS_KEY_FILE",
                        key.toString()),
                Map.of(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SSL",
                        SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PEM",
                        SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, cert.toString()));
    }

    /**
     * SASL SCRAM-SHA-256 without TLS ({@code SASL_PLAINTEXT}): one user with a password in a users
     * file written to {@code dir}, from which the proxy derives the SCRAM credentials at load.
     */
    public static ListenerSecurity sasl(Path dir) {
        Path users = dir.resolve("users.yaml");
        write(users, "users:\n  - name: " + SASL_USER + "\n    password: \"" + SASL_PASSWORD + "\"\n");
        return new ListenerSecurity("SASL",
                Map.of("LEASEHOLD_LISTENER_SASL_MECHANISMS", "SCRAM-SHA-256",
                        "LEASEHOLD_LISTENER_SASL_USERS_FILE", users.toString()),
                Map.of(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT",
                        SaslConfigs.SASL_MECHANISM, "SCRAM-SHA-256",
                        SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.scram.ScramLoginModule required"
                                + " username=\"" + SASL_USER + "\" password=\"" + SASL_PASSWORD + "\";"));
    }

    private static void openssl(Path dir, String... arguments) {
        List<String> command = new ArrayList<>(List.of("openssl"));
        command.addAll(List.of(arguments));
        try {
            Process openssl = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
            String output = new String(openssl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!openssl.waitFor(60, TimeUnit.SECONDS) || openssl.exitValue() != 0) {
                throw new IllegalStateException("openssl " + String.join(" ", arguments) + " failed: " + output.trim());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run openssl (is it installed?)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running openssl", e);
        }
    }

    private static void write(Path file, String content) {
        try {
            Files.writeString(file, content);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
