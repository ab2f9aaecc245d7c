package io.leasehold.proxy.config;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SSLException;

/**
 * Builds the client {@link SslContext} for broker connections from the {@code backends.tls.*}
 * files, read through {@link MountedFiles} like the listener's and etcd's: the CA that signs the
 * brokers' certificates (the JVM's default trust store when not set) and an optional client
 * certificate for brokers that verify their clients, and whether a broker's certificate must name
 * the host the proxy dialled.
 */
public final class BackendSslContextFactory {
    private final String sourceName;

    /** @param sourceName the config file's name, used in error messages */
    public BackendSslContextFactory(String sourceName) {
        this.sourceName = sourceName;
    }

    /**
     * Reads the files and builds the context, with the expiries of the client certificate (role
     * {@code backend_client}) and of the CA ({@code backend_ca}).
     *
     * @throws ConfigException naming each key whose file cannot be read or used
     */
    public TlsMaterial load(ProxyConfig.BackendTls tls) throws ConfigException {
        MountedFiles files = new MountedFiles(sourceName);
        List<X509Certificate> trusted = files.certificates("backends.tls.caFile", tls.caFile());
        MountedFiles.Identity identity = files.identity("backends.tls.certFile", tls.certFile(),
                "backends.tls.keyFile", tls.keyFile());
        files.throwIfProblems();

        // The host name check belongs to the context: Netty's client contexts make it by default.
        SslContextBuilder builder = SslContextBuilder.forClient().sslProvider(SslProvider.JDK)
                .protocols(tls.protocols())
                .endpointIdentificationAlgorithm(tls.verifyHostname() ? "HTTPS" : null);
        if (trusted != null) {
            builder.trustManager(trusted);
        }
        if (identity != null) {
            builder.keyManager(identity.key(), identity.chain());
        }
        try {
            return new TlsMaterial(builder.build(), new TlsMaterial.Expiries()
                    .add("backend_client", identity == null ? null : identity.chain().subList(0, 1))
                    .add("backend_ca", trusted).toMap());
        } catch (SSLException | IllegalArgumentException e) {
            throw new ConfigException(List.of(sourceName + ": backends.tls.caFile/certFile/keyFile: "
                    + "cannot build a TLS context from these files: " + e.getMessage()));
        }
    }
}
