package io.leasehold.broker.group;

import io.leasehold.routing.claim.Claim;
import io.leasehold.routing.claim.ClaimListener;
import io.leasehold.routing.claim.ClaimResult;
import io.leasehold.routing.claim.OwnershipClaimer;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Coordinates the consumer groups whose {@code P/group-leases/{group}} key this broker holds.
 * A group is claimed on first use; while another broker holds it, callers get
 * NOT_COORDINATOR. When the claim ends, the group's state here is dropped at once and its
 * members find the new coordinator.
 */
public final class GroupCoordinator implements ClaimListener {

    private final OwnershipClaimer claimer;
    private final ScheduledExecutorService scheduler;
    private final long initialRebalanceDelayMs;
    private final Map<String, ConsumerGroup> groups = new ConcurrentHashMap<>();

    /** The group's local state and the claim that lets this broker coordinate it, or who does instead. */
    public record Access(ConsumerGroup group, Claim claim, int otherCoordinator) {

        public boolean granted() {
            return group != null;
        }
    }

    public GroupCoordinator(OwnershipClaimer claimer, ScheduledExecutorService scheduler, long initialRebalanceDelayMs) {
        this.claimer = claimer;
        this.scheduler = scheduler;
        this.initialRebalanceDelayMs = initialRebalanceDelayMs;
        claimer.addListener(this);
    }

    /** Claims the group (or finds the claim already held) and returns its local state. */
    public CompletableFuture<Access> access(String groupId) {
        Optional<Claim> held = claimer.groupClaim(groupId);
        if (held.isPresent()) {
            return CompletableFuture.completedFuture(new Access(local(groupId), held.get(), -1));
        }
        return claimer.claimGroup(groupId).handle((result, error) -> {
            if (error != null) {
                // No etcd session right now: nobody known coordinates the group from here.
                return new Access(null, null, -1);
            }
            if (result instanceof ClaimResult.Won won) {
                return new Access(local(groupId), won.claim(), -1);
            }
            return new Access(null, null, ((ClaimResult.HeldByOther) result).ownerBrokerId());
        });
    }

    /** Groups coordinated here now. */
    public List<Map.Entry<String, ConsumerGroup>> coordinated() {
        return groups.entrySet().stream()
                .filter(entry -> claimer.groupClaim(entry.getKey()).isPresent())
                .toList();
    }

    /** The local state of a group coordinated here, if it has any. */
    public Optional<ConsumerGroup> existing(String groupId) {
        return Optional.ofNullable(groups.get(groupId));
    }

    private ConsumerGroup local(String groupId) {
        return groups.computeIfAbsent(groupId, id -> new ConsumerGroup(id, scheduler, initialRebalanceDelayMs));
    }

    /** Forgets a group DeleteGroups removed; a later request starts it anew. */
    public void deleted(String groupId) {
        lost(groupId);
    }

    /** Drops a group's state after a fenced offset commit showed the claim is gone. */
    public void lost(String groupId) {
        ConsumerGroup group = groups.remove(groupId);
        if (group != null) {
            group.unload();
        }
    }

    @Override
    public void onClaimLost(Claim claim) {
        if (!claim.isPartitionClaim()) {
            lost(claim.group());
        }
    }

    @Override
    public void onSessionLost() {
        groups.keySet().forEach(this::lost);
    }
}
