package io.leasehold.proxy.config;

import io.netty.handler.ssl.SslContext;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A TLS context built from mounted files, with the expiry of the certificates it was built from
 * by role ({@code listener}, {@code backend_ca}, ...), so the expiry can be watched without
 * reading the files again.
 */
public record TlsMaterial(SslContext context, Map<String, Instant> expiries) {
    public TlsMaterial {
        expiries = Map.copyOf(expiries);
    }

    /** Collects roles and their certificates' expiries; a {@code null} list (file not configured) is left out. */
    static final class Expiries {
        private final Map<String, Instant> byRole = new LinkedHashMap<>();

        /** The earliest end of validity in {@code certificates}: the first one that stops working. */
        Expiries add(String role, List<X509Certificate> certificates) {
            if (certificates != null && !certificates.isEmpty()) {
                byRole.put(role, certificates.stream().map(c -> c.getNotAfter().toInstant())
                        .min(Comparator.naturalOrder()).orElseThrow());
            }
            return this;
        }

        Map<String, Instant> toMap() {
            return byRole;
        }
    }
}
