package io.leasehold.proxy.config;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Builds the jetcd {@link Client} for the {@code etcd} section: endpoints, connect timeout, and
 * when configured, credentials and TLS material read from their files (mounted Secrets).
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
        ClientBuilder builder = Client.builder()
                .endpoints(etcd.endpoints().stream().map(URI::create).toArray(URI[]::new))
                .connectTimeout(etcd.connectTimeout());
        if (etcd.usernameFile() != null) {
            builder.user(ByteSequence.from(secret("etcd.usernameFile", etcd.usernameFile()), StandardCharsets.UTF_8))
                    .password(ByteSequence.from(secret("etcd.passwordFile", etcd.passwordFile()),
                            StandardCharsets.UTF_8));
        }
        if (etcd.tlsCaFile() != null || etcd.tlsCertFile() != null) {
            requireReadable("etcd.tlsCaFile", etcd.tlsCaFile());
            requireReadable("etcd.tlsCertFile", etcd.tlsCertFile());
            requireReadable("etcd.tlsKeyFile", etcd.tlsKeyFile());
            try {
                builder.sslContext(ssl -> {
                    if (etcd.tlsCaFile() != null) {
                        ssl.trustManager(etcd.tlsCaFile().toFile());
                    }
                    if (etcd.tlsCertFile() != null) {
                        ssl.keyManager(etcd.tlsCertFile().toFile(), etcd.tlsKeyFile().toFile());
                    }
                });
            } catch (IOException | IllegalArgumentException e) {
                throw new ConfigException(List.of(sourceName + ": etcd.tlsCaFile/tlsCertFile/tlsKeyFile: "
                        + "cannot build a TLS context from these files: " + e.getMessage()));
            }
        }
        return builder.build();
    }

    /** Reads a one-line secret; the trailing newline Secrets created from files often carry is dropped. */
    private String secret(String key, Path file) throws ConfigException {
        try {
            String value = Files.readString(file, StandardCharsets.UTF_8).strip();
            if (value.isEmpty()) {
                throw new ConfigException(List.of(sourceName + ": " + key + ": the file " + file + " is empty"));
            }
            return value;
        } catch (IOException e) {
            throw new ConfigException(List.of(sourceName + ": " + key + ": cannot read " + file + ": " + e));
        }
    }

    private void requireReadable(String key, Path file) throws ConfigException {
        if (file != null && !Files.isReadable(file)) {
            throw new ConfigException(List.of(sourceName + ": " + key + ": cannot read " + file));
        }
    }
}
