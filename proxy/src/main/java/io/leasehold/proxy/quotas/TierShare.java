package io.leasehold.proxy.quotas;

import java.util.function.IntSupplier;

/**
 * This proxy's share of a tier-wide quota: the quota divided by the proxies alive in the tier,
 * so that clients spread over every proxy get the whole quota between them. The count of live
 * proxies comes from outside (etcd registrations); a count below one is taken as one, so a
 * proxy that knows of no peer, itself included, still enforces the whole quota.
 */
public final class TierShare {
    private final IntSupplier liveProxies;

    public TierShare(IntSupplier liveProxies) {
        this.liveProxies = liveProxies;
    }

    /** The bytes a second this proxy allows of a tier-wide {@code quota}. */
    public double of(double quota) {
        return quota / Math.max(1, liveProxies.getAsInt());
    }
}
