package io.leasehold.broker.ownership;

import io.leasehold.routing.claim.Claim;
import io.leasehold.routing.claim.ClaimListener;
import io.leasehold.routing.claim.ClaimResult;
import io.leasehold.routing.claim.OwnershipClaimer;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The fixed behaviour: a partition is written only under this broker's lease-backed ownership
 * key, and every commit is fenced on that key's value and epoch, so a broker that lost its
 * ownership (paused, partitioned, expired) can never commit.
 */
public final class LeasedWriteGuard implements PartitionWriteGuard {

    private final OwnershipClaimer claimer;

    public LeasedWriteGuard(OwnershipClaimer claimer) {
        this.claimer = claimer;
    }

    @Override
    public CompletableFuture<WriteAccess> acquire(String topic, int partition) {
        return claimer.claimPartition(topic, partition).thenApply(result -> {
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
