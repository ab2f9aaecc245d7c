package io.leasehold.broker.ownership;

import io.leasehold.broker.etcd.Etcd;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The legacy behaviour from the bug report ({@code --ownership none}): every broker may write
 * every partition, and offsets are written back with plain puts. Two brokers taking produce
 * traffic for one partition hand out the same offsets; this guard exists to reproduce that.
 */
public final class UnfencedWriteGuard implements PartitionWriteGuard {

    private final Etcd etcd;
    private final String writerTag;

    /**
     * @param brokerId     this broker
     * @param startedMillis distinguishes this process's files from an earlier process with the same id
     */
    public UnfencedWriteGuard(Etcd etcd, int brokerId, long startedMillis) {
        this.etcd = etcd;
        this.writerTag = "b" + brokerId + "s" + startedMillis;
    }

    @Override
    public CompletableFuture<WriteAccess> acquire(String topic, int partition) {
        return CompletableFuture.completedFuture(new WriteAccess.Granted(topic, partition, writerTag, null));
    }

    @Override
    public CompletableFuture<Boolean> commit(WriteAccess.Granted grant, Map<String, String> puts) {
        return etcd.putAll(puts).thenApply(ignored -> true);
    }

    @Override
    public CompletableFuture<Void> abandon(WriteAccess.Granted grant) {
        // The legacy behaviour has no ownership to give up: that is the bug it reproduces.
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public void addRevocationListener(RevocationListener listener) {
        // Nothing is ever revoked: that is the bug this mode reproduces.
    }
}
