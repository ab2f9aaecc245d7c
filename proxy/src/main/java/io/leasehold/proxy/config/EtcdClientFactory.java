package io.leasehold.proxy.config;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SSLException;

/**
 * Builds the jetcd {@link Client} for the {@code etcd} section: endpoints, connect timeout, and
 * when configured, credentials and TLS material read from their files (mounted Secrets) through
 * {@link MountedFiles}, which reports every unusable file at once.
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
        if (trusted != null || identity != null) {
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
}
