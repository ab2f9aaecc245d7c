package io.leasehold.proxy.quotas;

import io.leasehold.proxy.files.MountedFileWatcher;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;

/**
 * Counts, for users under a byte-rate quota, their bytes as {@code leasehold_quota_bytes_total}
 * and the throttle asked of them as {@code leasehold_quota_throttle_seconds_total}, both by user
 * and quota type ({@code producer_byte_rate}, {@code consumer_byte_rate}); users without a quota
 * are not counted, so the user tag stays bounded by the quotas file and the users it names or
 * defaults. Quotas file reloads are {@code leasehold_quota_reloads_total} by outcome, and the
 * live proxies a quota is divided by is {@code leasehold_quota_tier_proxies}.
 */
public final class QuotaMetrics implements MountedFileWatcher.Outcomes {
    private final MeterRegistry registry;
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();

    public QuotaMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /** Exports the count of live proxies in the tier, each enforcing its share of a quota. */
    public void bindTierProxies(IntSupplier liveProxies) {
        Gauge.builder("leasehold.quota.tier.proxies", liveProxies::getAsInt)
                .description("Live proxies in the tier as this proxy last counted them in etcd; each enforces "
                        + "this share of every quota")
                .register(registry);
    }

    /** {@code user} sent or fetched {@code bytes} under a quota of {@code type} and is throttled {@code throttleMs}. */
    void recorded(QuotaType type, String user, long bytes, long throttleMs) {
        counter("leasehold.quota.bytes", "Bytes produced or fetched by users under a byte-rate quota", type, user)
                .increment(bytes);
        if (throttleMs > 0) {
            counter("leasehold.quota.throttle.seconds", "Time users under a byte-rate quota were throttled for",
                    type, user).increment(throttleMs / 1000.0);
        }
    }

    /** The quotas file changed and was loaded ({@code true}), or could not be used and the old rules stayed. */
    @Override
    public void reloaded(boolean usable) {
        String outcome = usable ? "success" : "failure";
        counters.computeIfAbsent("reload/" + outcome, key -> Counter.builder("leasehold.quota.reloads")
                .description("Reloads of a changed quotas file, by outcome (a failure keeps the previous quotas)")
                .tag("outcome", outcome)
                .register(registry)).increment();
    }

    private Counter counter(String name, String description, QuotaType type, String user) {
        return counters.computeIfAbsent(name + '/' + type + '/' + user, key -> Counter.builder(name)
                .description(description)
                .tag("user", user)
                .tag("quota", type.kafkaName().toLowerCase(Locale.ROOT))
                .register(registry));
    }
}
