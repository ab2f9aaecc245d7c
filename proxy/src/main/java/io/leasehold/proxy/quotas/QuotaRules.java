package io.leasehold.proxy.quotas;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * The quotas in force, resolved for a client as Kafka does: for each quota type separately, the
 * most specific entry that sets that type wins, in this order (Kafka's documented precedence):
 * user + client id, user + default client id, user, default user + client id, default user +
 * default client id, default user, client id, default client id. Without a user (empty) only
 * client id entries match; a Kafka broker names an unauthenticated client's user
 * {@code ANONYMOUS}, and callers that follow it pass that name. Immutable.
 */
public final class QuotaRules {
    private static final QuotaRules NONE = new QuotaRules(List.of());

    private final List<QuotaEntry> entries;
    private final Map<QuotaEntity, QuotaEntry> byEntity = new LinkedHashMap<>();

    private QuotaRules(List<QuotaEntry> entries) {
        this.entries = List.copyOf(entries);
        for (QuotaEntry entry : this.entries) {
            if (byEntity.putIfAbsent(entry.entity(), entry) != null) {
                throw new IllegalArgumentException("two entries for " + entry.entity());
            }
        }
    }

    /** The rules of {@code entries}; each entity may appear once. */
    public static QuotaRules of(List<QuotaEntry> entries) {
        return new QuotaRules(entries);
    }

    /** No quotas: nobody is throttled. */
    public static QuotaRules none() {
        return NONE;
    }

    /** The entries, in file order. */
    public List<QuotaEntry> entries() {
        return entries;
    }

    /**
     * The quota of {@code type} for {@code user} (empty when the connection is anonymous) using
     * {@code clientId}; empty when no entry sets one for it.
     */
    public OptionalDouble quota(QuotaType type, Optional<String> user, String clientId) {
        for (QuotaEntity candidate : candidates(user, clientId)) {
            QuotaEntry entry = byEntity.get(candidate);
            if (entry != null && entry.quotas().containsKey(type)) {
                return OptionalDouble.of(entry.quotas().get(type));
            }
        }
        return OptionalDouble.empty();
    }

    /** The entry's entity whose quota of {@code type} applies to the client, as written in the file. */
    public Optional<QuotaEntity> governingEntity(QuotaType type, Optional<String> user, String clientId) {
        for (QuotaEntity candidate : candidates(user, clientId)) {
            QuotaEntry entry = byEntity.get(candidate);
            if (entry != null && entry.quotas().containsKey(type)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    private static List<QuotaEntity> candidates(Optional<String> user, String clientId) {
        Optional<String> client = Optional.of(clientId);
        Optional<String> anyClient = Optional.of(QuotaEntity.DEFAULT);
        Optional<String> anyUser = Optional.of(QuotaEntity.DEFAULT);
        List<QuotaEntity> order = new ArrayList<>(8);
        if (user.isPresent()) {
            order.add(new QuotaEntity(user, client));
            order.add(new QuotaEntity(user, anyClient));
            order.add(new QuotaEntity(user, Optional.empty()));
            order.add(new QuotaEntity(anyUser, client));
            order.add(new QuotaEntity(anyUser, anyClient));
            order.add(new QuotaEntity(anyUser, Optional.empty()));
        }
        order.add(new QuotaEntity(Optional.empty(), client));
        order.add(new QuotaEntity(Optional.empty(), anyClient));
        return order;
    }
}
