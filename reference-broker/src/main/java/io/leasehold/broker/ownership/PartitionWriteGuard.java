package io.leasehold.broker.ownership;

import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * How the broker obtains the right to write a partition and commits what it wrote to etcd:
 * through lease-backed ownership with fenced commits ({@link LeasedWriteGuard}), or the legacy
 * unfenced way that reproduces the overlapping-offsets bug ({@link UnfencedWriteGuard}).
 */
public interface PartitionWriteGuard {

    CompletableFuture<WriteAccess> acquire(String topic, int partition);

    /**
     * Commits the puts if the grant still stands.
     *
     * @return false when the grant was no longer valid and nothing was committed
     */
    CompletableFuture<Boolean> commit(WriteAccess.Granted grant, Map<String, String> puts);

    /**
     * Gives up a grant whose last commit has an unknown outcome. The next writer must then work
     * under a new ownership epoch, so that a commit etcd applies late can never be mistaken for
     * one of the new writer's, and the new writer's segment file never reuses the old name.
     */
    CompletableFuture<Void> abandon(WriteAccess.Granted grant);

    /** Registers who must hear when grants stop standing. */
    void addRevocationListener(RevocationListener listener);

    /** Hears revoked grants. Called from etcd client threads; must not block. */
    interface RevocationListener {

        /** The grant for one partition ended; {@code claimEpoch} says which ownership ended. */
        void revoked(String topic, int partition, long claimEpoch);

        /** Every grant ended at once (the session lease was lost). */
        void revokedAll();
    }
}
