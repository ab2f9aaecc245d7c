package io.leasehold.proxy.quotas;

import java.util.Optional;

/**
 * Who one quota entry applies to, as Kafka names client quota entities: a user, a client id, or
 * both. A present part is a name or {@link #DEFAULT} (Kafka's {@code <default>}, every user or
 * client id without an entry of its own); an absent part does not narrow the entry.
 */
public record QuotaEntity(Optional<String> user, Optional<String> clientId) {
    /** Kafka's name for the default entity of a kind. */
    public static final String DEFAULT = "<default>";

    public QuotaEntity {
        if (user.isEmpty() && clientId.isEmpty()) {
            throw new IllegalArgumentException("a quota entity names a user, a client id, or both");
        }
    }

    /** How the entity reads in log lines and messages, e.g. {@code user=etl, clientId=loader}. */
    @Override
    public String toString() {
        StringBuilder text = new StringBuilder();
        user.ifPresent(name -> text.append("user=").append(name));
        clientId.ifPresent(name -> text.append(text.isEmpty() ? "" : ", ").append("clientId=").append(name));
        return text.toString();
    }
}
