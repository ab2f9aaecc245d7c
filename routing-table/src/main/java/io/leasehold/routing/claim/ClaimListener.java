package io.leasehold.routing.claim;

/** Hears when claims stop standing. Called from etcd client threads; must not block. */
public interface ClaimListener {

    /** One claim ended: its key was deleted or overwritten, or it was released. */
    void onClaimLost(Claim claim);

    /** The session lease expired or its keep-alive failed: every claim was dropped at once. */
    void onSessionLost();
}
