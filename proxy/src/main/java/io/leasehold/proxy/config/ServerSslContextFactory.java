package io.leasehold.proxy.config;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the Kafka listener's server {@link SslContext} from the {@code listener.tls*} files, at
 * start-up and again whenever they change. The files are read through {@link MountedFiles} like etcd's, so every unusable one
 * (unreadable, not PEM, a key that is not the certificate's) is reported at once with its key.
 */
public final class ServerSslContextFactory {
    private static final Logger LOG = LoggerFactory.getLogger(ServerSslContextFactory.class);

    private final String sourceName;

    /** @param sourceName the config file's name, used in error messages */
    public ServerSslContextFactory(String sourceName) {
        this.sourceName = sourceName;
    }

    /**
     * Reads the certificate, key and client CA of a TLS listener ({@link ProxyConfig.Listener#tls()})
     * and builds the context.
     *
     * @throws ConfigException naming each key whose file cannot be read or used
     */
    public SslContext create(ProxyConfig.Listener listener) throws ConfigException {
        return load(listener).context();
    }

    /**
     * Like {@link #create}, with the expiries of the listener certificate (role {@code listener})
     * and of the client CA ({@code listener_ca}).
     */
    public TlsMaterial load(ProxyConfig.Listener listener) throws ConfigException {
        if (!listener.tls()) {
            throw new IllegalArgumentException("the listener has no TLS certificate configured");
        }
        MountedFiles files = new MountedFiles(sourceName);
        MountedFiles.Identity identity = files.identity("listener.tlsCertFile", listener.tlsCertFile(),
                "listener.tlsKeyFile", listener.tlsKeyFile());
        List<X509Certificate> clientCas = files.certificates("listener.tlsCaFile", listener.tlsCaFile());
        files.throwIfProblems();

        // The JDK provider: no native library to ship in the image.
        SslContextBuilder builder = SslContextBuilder.forServer(identity.key(), identity.chain())
                .sslProvider(SslProvider.JDK)
                .clientAuth(switch (listener.tlsClientAuth()) {
                    case NONE -> ClientAuth.NONE;
                    case REQUESTED -> ClientAuth.OPTIONAL;
                    case REQUIRED -> ClientAuth.REQUIRE;
                });
        if (clientCas != null) {
            builder.trustManager(clientCas);
        }
        SslContext context;
        try {
            context = builder.build();
        } catch (SSLException | IllegalArgumentException e) {
            throw new ConfigException(List.of(sourceName + ": listener.tlsCertFile/tlsKeyFile/tlsCaFile: "
                    + "cannot build a TLS context from these files: " + e.getMessage()));
        }
        describe(identity.chain().get(0), listener);
        return new TlsMaterial(context, new TlsMaterial.Expiries().add("listener", identity.chain().subList(0, 1))
                .add("listener_ca", clientCas).toMap());
    }

    private static void describe(X509Certificate certificate, ProxyConfig.Listener listener) {
        String subject = certificate.getSubjectX500Principal().getName();
        try {
            certificate.checkValidity();
            LOG.info("Kafka listener TLS: certificate {} valid until {}, client certificates {}", subject,
                    certificate.getNotAfter().toInstant(), ConfigReader.word(listener.tlsClientAuth()));
        } catch (CertificateExpiredException | CertificateNotYetValidException e) {
            // Not fatal: the clock may be off, and the operator may be mid-rotation; clients will say so too.
            LOG.warn("Kafka listener TLS certificate {} ({}) is not valid now (valid {} to {}): clients will refuse it",
                    subject, listener.tlsCertFile(), certificate.getNotBefore().toInstant(),
                    certificate.getNotAfter().toInstant());
        }
    }
}
