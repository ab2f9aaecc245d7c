package io.leasehold.proxy.security;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counts loads of the OAUTHBEARER signing keys after start-up as
 * {@code leasehold_jwks_refreshes_total} by source ("file": a changed JWKS file, "url": a fetch of
 * the JWKS URL) and outcome ("success", "failure": the previous keys stay in force).
 */
public final class JwksMetrics {
    private final MeterRegistry registry;
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();

    public JwksMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /** The keys from {@code source} were loaded ({@code true}), or could not be and the old ones stayed. */
    public void refreshed(String source, boolean success) {
        String outcome = success ? "success" : "failure";
        counters.computeIfAbsent(source + '/' + outcome, key -> Counter.builder("leasehold.jwks.refreshes")
                .description("Loads of the OAUTHBEARER token signing keys (JWKS) by source and outcome; a failure "
                        + "keeps the previous keys")
                .tag("source", source)
                .tag("outcome", outcome)
                .register(registry)).increment();
    }
}
