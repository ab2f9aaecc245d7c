package io.leasehold.proxy.quotas;

import java.util.Map;

/** One entry of the quotas file: an entity and the quotas it sets (at least one). */
public record QuotaEntry(QuotaEntity entity, Map<QuotaType, Double> quotas) {
    public QuotaEntry {
        if (quotas.isEmpty()) {
            throw new IllegalArgumentException("a quota entry sets at least one quota");
        }
        quotas = Map.copyOf(quotas);
    }
}
