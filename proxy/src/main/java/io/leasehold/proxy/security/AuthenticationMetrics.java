package io.leasehold.proxy.security;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counts SASL authentications as {@code leasehold_client_authentications_total}, by mechanism,
 * outcome ("success", "failure") and failure reason ("none" on success). Label values come from
 * small fixed sets, never from what the client sent.
 */
public final class AuthenticationMetrics {
    private final MeterRegistry registry;
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();

    public AuthenticationMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /** A client authenticated with {@code mechanism}. */
    public void succeeded(String mechanism) {
        count(mechanism, "success", "none");
    }

    /**
     * A SASL exchange failed for {@code reason} (see {@link AuthenticationFailure#reason()}).
     *
     * @param mechanism an enabled mechanism, or "none" when the client named one that is not
     */
    public void failed(String mechanism, String reason) {
        count(mechanism, "failure", reason);
    }

    private void count(String mechanism, String outcome, String reason) {
        counters.computeIfAbsent(mechanism + '/' + outcome + '/' + reason, key -> Counter
                .builder("leasehold.client.authentications")
                .description("SASL authentications on the Kafka listener, by mechanism, outcome and failure reason")
                .tag("mechanism", mechanism)
                .tag("outcome", outcome)
                .tag("reason", reason)
                .register(registry)).increment();
    }
}
