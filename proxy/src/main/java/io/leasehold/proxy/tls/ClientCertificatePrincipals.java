package io.leasehold.proxy.tls;

import io.leasehold.proxy.config.ProxyConfig;
import io.leasehold.proxy.request.ConnectionPrincipal;
import java.io.IOException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.List;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * Names the principal of a client connection from its verified certificate, as a Kafka broker
 * does on an SSL listener: the subject's distinguished name (RFC 2253 form, as Kafka reads it),
 * or the first subject alternative name of the configured type, goes through the configured
 * {@code ssl.principal.mapping.rules}-style rules (kafka-clients' own mapper), and the result is
 * the name of a {@code User:} principal. Immutable.
 */
public final class ClientCertificatePrincipals {
    /** Subject alternative name types, as {@link X509Certificate#getSubjectAlternativeNames()} numbers them. */
    private static final int EMAIL_NAME = 1;
    private static final int DNS_NAME = 2;
    private static final int URI_NAME = 6;

    private final ProxyConfig.CertificatePrincipals settings;

    public ClientCertificatePrincipals(ProxyConfig.CertificatePrincipals settings) {
        this.settings = settings;
    }

    /** The principal {@code certificate} names, or why it names none (no rule applies, no such SAN). */
    public KafkaPrincipal principalOf(X509Certificate certificate) throws UnmappableCertificateException {
        String name = settings.from() == ProxyConfig.PrincipalSource.SUBJECT
                ? certificate.getSubjectX500Principal().getName()
                : alternativeName(certificate);
        try {
            return ConnectionPrincipal.user(settings.mappingRules().getName(name));
        } catch (IOException e) {
            throw new UnmappableCertificateException(e.getMessage());
        }
    }

    private String alternativeName(X509Certificate certificate) throws UnmappableCertificateException {
        int type = switch (settings.from()) {
            case DNS_SAN -> DNS_NAME;
            case URI_SAN -> URI_NAME;
            case EMAIL_SAN -> EMAIL_NAME;
            case SUBJECT -> throw new IllegalStateException("the subject is not an alternative name");
        };
        Collection<List<?>> names;
        try {
            names = certificate.getSubjectAlternativeNames();
        } catch (CertificateParsingException e) {
            throw new UnmappableCertificateException("its subject alternative names cannot be read: " + e.getMessage());
        }
        for (List<?> entry : names == null ? List.<List<?>>of() : names) {
            if (Integer.valueOf(type).equals(entry.get(0)) && entry.get(1) instanceof String value) {
                return value;
            }
        }
        throw new UnmappableCertificateException("it has no subject alternative name of the type "
                + "listener.tlsPrincipal.from names (" + settings.from() + ")");
    }

    /** A verified client certificate that names no principal under the configured rules. */
    public static final class UnmappableCertificateException extends Exception {
        UnmappableCertificateException(String message) {
            super(message);
        }
    }
}
