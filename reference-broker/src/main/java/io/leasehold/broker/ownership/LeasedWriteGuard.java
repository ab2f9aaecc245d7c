package io.leasehold.broker.ownership;

import io.leasehold.routing.claim.Claim;
import io.leasehold.routing.claim.ClaimListener;
import io.leasehold.routing.claim.ClaimResult;
import io.leasehold.routing.claim.OwnershipClaimer;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The fixed behaviour: a partition is written only under this broker's lease-backed ownership
 * key, and every commit is fenced on that key's value and epoch, so a broker that lost its
 * ownership (paused, partitioned, expired) can never commit.
 */
public final class LeasedWriteGuard implements PartitionWriteGuard {

    private final OwnershipClaimer claimer;
    /** Abandoned claims whose release has not reached etcd yet; they must never be written under again. */
    private final Set<Claim> abandoned = ConcurrentHashMap.newKeySet();

    public LeasedWriteGuard(OwnershipClaimer claimer) {
        this.claimer = claimer;
    }

    @Override
    public CompletableFuture<WriteAccess> acquire(String topic, int partition) {
        return claimer.claimPartition(topic, partition).thenCompose(result -> {
            if (result instanceof ClaimResult.Won won && abandoned.contains(won.claim())) {
                // The key still carries the abandoned epoch: delete it first, then claim anew.
                return releaseAbandoned(won.claim()).thenCompose(released -> claimer.claimPartition(topic, partition));
            }
            return CompletableFuture.completedFuture(result);
        }).thenApply(result -> {
            if (result instanceof ClaimResult.Won won) {
                Claim claim = won.claim();
                return new WriteAccess.Granted(topic, partition, "e" + claim.epoch(), claim);
            }
            ClaimResult.HeldByOther other = (ClaimResult.HeldByOther) result;
            return new WriteAccess.Refused(other.ownerBrokerId());
        });
    }

    @Override
    public CompletableFuture<Boolean> commit(WriteAccess.Granted grant, Map<String, String> puts) {
        return claimer.commitFenced(grant.claim(), puts);
    }

    @Override
    public CompletableFuture<Void> abandon(WriteAccess.Granted grant) {
        abandoned.add(grant.claim());
        return releaseAbandoned(grant.claim());
    }

    private CompletableFuture<Void> releaseAbandoned(Claim claim) {
        return claimer.release(claim).thenRun(() -> abandoned.remove(claim));
    }

    @Override
    public void addRevocationListener(RevocationListener listener) {
        claimer.addListener(new ClaimListener() {
            @Override
            public void onClaimLost(Claim claim) {
                if (claim.isPartitionClaim()) {
                    listener.revoked(claim.partition().topic(), claim.partition().partition(), claim.epoch());
                }
            }

            @Override
            public void onSessionLost() {
                listener.revokedAll();
            }
        });
    }
}
