package io.leasehold.proxy.tls;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Instant;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Publishes {@code leasehold_certificate_expiry_timestamp_seconds{role}}: when each certificate in
 * use stops being valid, in seconds since the epoch (a timestamp, named as Prometheus names them, so
 * an alert compares it with {@code time()}). Read at
 * scrape time, so a reloaded certificate shows its own expiry.
 */
public final class CertificateExpiryMetrics {
    private final MeterRegistry registry;

    public CertificateExpiryMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /** One gauge per role of {@code expiries}; the supplier is asked again at every scrape. */
    public void track(Supplier<Map<String, Instant>> expiries) {
        for (String role : expiries.get().keySet()) {
            Gauge.builder("leasehold.certificate.expiry.timestamp", expiries,
                            e -> e.get().getOrDefault(role, Instant.EPOCH).getEpochSecond())
                    .description("When the certificate in use for this role expires (not-after), seconds since the epoch")
                    .baseUnit("seconds").tag("role", role).strongReference(true).register(registry);
        }
    }
}
