package io.leasehold.proxy.quotas;

import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Counts a client's produce or fetch bytes against its quota and says how long to throttle it.
 * Bytes are counted per quota bucket as Kafka does: the entity of the entry that applies, with a
 * {@code <default>} part standing for the client's own user or client id, so every user under
 * a default entry has a quota of its own while the clients of one user share that user's quota.
 * The quota enforced is this proxy's {@link TierShare} of the file's. Thread-safe.
 */
public final class ClientQuotas {
    private final Supplier<QuotaRules> rules;
    private final TierShare share;
    private final LongSupplier nanoClock;
    private final QuotaMetrics metrics;
    private final QuotaWindow window;
    private final Map<Bucket, ByteRateMeter> meters = new ConcurrentHashMap<>();

    /** One quota type's bytes of one entity, with its defaults filled in. */
    private record Bucket(QuotaType type, QuotaEntity entity) {}

    /**
     * @param rules  the rules in force (a reloading file's {@code current})
     * @param share  this proxy's share of each quota
     * @param window over how long each client's rate is measured
     */
    public ClientQuotas(Supplier<QuotaRules> rules, TierShare share, LongSupplier nanoClock, QuotaMetrics metrics,
                        QuotaWindow window) {
        this.window = window;
        this.rules = rules;
        this.metrics = metrics;
        this.share = share;
        this.nanoClock = nanoClock;
    }

    /**
     * Counts {@code bytes} of {@code type} ({@link QuotaType#PRODUCER_BYTE_RATE} or
     * {@link QuotaType#CONSUMER_BYTE_RATE}) sent or fetched by {@code user} as {@code clientId}.
     *
     * @return the milliseconds to throttle the client for; 0 without a quota or within it
     */
    public long record(QuotaType type, String user, String clientId, long bytes) {
        if (type == QuotaType.REQUEST_PERCENTAGE) {
            throw new IllegalArgumentException("the request percentage is not a byte rate");
        }
        QuotaRules current = rules.get();
        Optional<String> named = Optional.of(user);
        OptionalDouble quota = current.quota(type, named, clientId);
        if (quota.isEmpty()) {
            return 0;
        }
        QuotaEntity written = current.governingEntity(type, named, clientId).orElseThrow();
        QuotaEntity entity = new QuotaEntity(written.user().map(name -> user),
                written.clientId().map(name -> clientId));
        ByteRateMeter meter = meters.computeIfAbsent(new Bucket(type, entity),
                bucket -> window.meter(nanoClock));
        long throttleMs = meter.recordAndThrottleMs(bytes, share.of(quota.getAsDouble()));
        metrics.recorded(type, user, bytes, throttleMs);
        return throttleMs;
    }
}
