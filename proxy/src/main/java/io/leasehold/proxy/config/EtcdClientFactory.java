package io.leasehold.proxy.config;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLException;

/**
 * Builds the jetcd {@link Client} for the {@code etcd} section: endpoints, connect timeout, and
 * when configured, credentials and TLS material read from their files (mounted Secrets) through
 * {@link MountedFiles}, which reports every unusable file at once. {@code https://} endpoints
 * always get TLS, verified against {@code tlsCaFile} or else the JVM's default trust store.
 */
public final class EtcdClientFactory {

    private final String sourceName;

    /** @param sourceName the config file's name, used in error messages */
    public EtcdClientFactory(String sourceName) {
        this.sourceName = sourceName;
    }

    /**
     * Creates a client; connection happens lazily on first use, as jetcd does.
     *
     * @throws ConfigException if a credentials or TLS file cannot be read or used, naming its key
     */
    public Client create(ProxyConfig.Etcd etcd) throws ConfigException {
        MountedFiles files = new MountedFiles(sourceName);
        String user = files.secret("etcd.usernameFile", etcd.usernameFile());
        String password = files.secret("etcd.passwordFile", etcd.passwordFile());
        List<X509Certificate> trusted = files.certificates("etcd.tlsCaFile", etcd.tlsCaFile());
        MountedFiles.Identity identity = files.identity("etcd.tlsCertFile", etcd.tlsCertFile(),
                "etcd.tlsKeyFile", etcd.tlsKeyFile());
        files.throwIfProblems();

        ClientBuilder builder = Client.builder()
                .endpoints(etcd.endpoints().stream().map(URI::create).toArray(URI[]::new))
                .connectTimeout(etcd.connectTimeout());
        if (user != null) {
            builder.user(ByteSequence.from(user, StandardCharsets.UTF_8))
                    .password(ByteSequence.from(password, StandardCharsets.UTF_8));
        }
        // Always a TLS context for https://: without one jetcd would talk plaintext to an https:// URL.
        // No CA file means the JVM's default trust store, as for any https:// client.
        if (etcd.endpoints().stream().anyMatch(url -> url.startsWith("https://"))) {
            try {
                builder.sslContext(ssl -> {
                    if (trusted != null) {
                        ssl.trustManager(trusted);
                    }
                    if (identity != null) {
                        ssl.keyManager(identity.key(), identity.chain());
                    }
                });
            } catch (SSLException | IllegalArgumentException e) {
                throw new ConfigException(List.of(sourceName + ": etcd.tlsCaFile/tlsCertFile/tlsKeyFile: "
                        + "cannot build a TLS context from these files: " + e.getMessage()));
            }
        }
        return builder.build();
    }

    /**
     * The expiries of the etcd client certificate (role {@code etcd_client}) and CA
     * ({@code etcd_ca}), for the expiry metric; the jetcd client reads them once, at start-up.
     */
    public Map<String, Instant> certificateExpiries(ProxyConfig.Etcd etcd) throws ConfigException {
        MountedFiles files = new MountedFiles(sourceName);
        List<X509Certificate> client = files.certificates("etcd.tlsCertFile", etcd.tlsCertFile());
        List<X509Certificate> trusted = files.certificates("etcd.tlsCaFile", etcd.tlsCaFile());
        files.throwIfProblems();
        return new TlsMaterial.Expiries().add("etcd_client", client == null ? null : client.subList(0, 1))
                .add("etcd_ca", trusted).toMap();
    }
}
