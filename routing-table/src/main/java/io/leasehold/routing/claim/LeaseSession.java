package io.leasehold.routing.claim;

import io.etcd.jetcd.Lease;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.support.CloseableClient;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One etcd lease kept alive in the background. The first keep-alive failure or a lapse of the
 * lease ends the session for good: a session never comes back to life, because keys attached to
 * it may already be gone and someone else may own them. The owner starts a new session instead.
 */
final class LeaseSession implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LeaseSession.class);

    private final Lease leases;
    private final long leaseId;
    private final AtomicBoolean alive = new AtomicBoolean(true);
    private final BiConsumer<LeaseSession, String> onLost;
    private volatile CloseableClient keepAlive;

    private LeaseSession(Lease leases, long leaseId, BiConsumer<LeaseSession, String> onLost) {
        this.leases = leases;
        this.leaseId = leaseId;
        this.onLost = onLost;
    }

    /**
     * Grants a lease of {@code ttl} (rounded up to whole seconds) and starts keeping it alive.
     * Blocks up to {@code timeout} for the grant.
     *
     * @param onLost called once, from an etcd client thread, with the reason the session ended
     */
    static LeaseSession open(Lease leases, Duration ttl, Duration timeout, BiConsumer<LeaseSession, String> onLost)
            throws InterruptedException, ExecutionException, TimeoutException {
        long ttlSeconds = Math.max(1, (ttl.toMillis() + 999) / 1000);
        long leaseId = leases.grant(ttlSeconds).get(timeout.toMillis(), TimeUnit.MILLISECONDS).getID();
        LeaseSession session = new LeaseSession(leases, leaseId, onLost);
        session.keepAlive = leases.keepAlive(leaseId, session.new Observer());
        return session;
    }

    long leaseId() {
        return leaseId;
    }

    boolean isAlive() {
        return alive.get();
    }

    /** Stops the keep-alive without reporting a loss, and revokes the lease so its keys go now. */
    @Override
    public void close() {
        if (alive.getAndSet(false)) {
            stopKeepAlive();
        }
        revokeQuietly();
    }

    /** Revokes the lease if etcd can be reached; otherwise the lease simply runs out. */
    void revokeQuietly() {
        leases.revoke(leaseId).orTimeout(5, TimeUnit.SECONDS).whenComplete((ok, error) -> {
            if (error != null) {
                LOG.debug("could not revoke lease {} (it will expire by itself): {}", Long.toHexString(leaseId), error.toString());
            }
        });
    }

    private void lose(String reason) {
        if (alive.compareAndSet(true, false)) {
            stopKeepAlive();
            onLost.accept(this, reason);
        }
    }

    private void stopKeepAlive() {
        CloseableClient running = keepAlive;
        if (running != null) {
            running.close();
        }
    }

    private final class Observer implements StreamObserver<LeaseKeepAliveResponse> {
        @Override
        public void onNext(LeaseKeepAliveResponse response) {
            // The keep-alive arrived in time; nothing to do.
        }

        @Override
        public void onError(Throwable error) {
            lose("keep-alive of lease " + Long.toHexString(leaseId) + " failed: " + error.getMessage());
        }

        @Override
        public void onCompleted() {
            lose("lease " + Long.toHexString(leaseId) + " lapsed: no keep-alive answer within its TTL");
        }
    }
}
