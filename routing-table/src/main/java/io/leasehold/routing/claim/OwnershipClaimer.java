package io.leasehold.routing.claim;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.leasehold.routing.etcd.EtcdBytes;
import io.leasehold.routing.etcd.ReconnectBackoff;
import io.leasehold.routing.keys.BrokerRegistration;
import io.leasehold.routing.keys.KeySchema;
import io.leasehold.routing.keys.OwnerValue;
import io.leasehold.routing.snapshot.BrokerAddress;
import io.leasehold.routing.snapshot.PartitionId;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker side of the ownership contract: one keep-alive lease (the session) carries every
 * ownership key and the broker registration of one broker.
 *
 * <ul>
 *   <li>A claim is one etcd transaction: {@code if create_revision(key) == 0 then put(key, id, lease)
 *   else get(key)}. The key's {@code create_revision} is the claim's epoch. Claiming a key that
 *   already holds this broker's id <em>on this session's lease</em> wins again (idempotent); the same
 *   id on another lease is someone else — a second process configured with the same id, or this
 *   broker's previous session — so two claimers never both believe they own a key.</li>
 *   <li>{@link #commitFenced} writes only while the claim's key still has this broker's value and
 *   the claim's epoch, in one transaction, so a broker that lost its key can never commit.</li>
 *   <li>When the session is lost (keep-alive failure, lapsed lease) every claim is dropped at once,
 *   listeners hear {@link ClaimListener#onSessionLost()}, and a new session is set up in the
 *   background with backoff (the broker registration is re-published on it). Until then claims
 *   fail fast.</li>
 * </ul>
 */
public final class OwnershipClaimer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(OwnershipClaimer.class);
    private static final Duration GRANT_TIMEOUT = Duration.ofSeconds(10);
    /**
     * The first session of a starting broker: a fresh JVM's first etcd call (class loading, the
     * gRPC channel) can take well over {@link #GRANT_TIMEOUT} on a busy machine.
     */
    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

    private final Client client;
    private final KV kv;
    private final KeySchema keys;
    private final int brokerId;
    private final ByteSequence ownerValue;
    private final Duration leaseTtl;
    private final ScheduledExecutorService scheduler;
    private final ReconnectBackoff sessionBackoff = new ReconnectBackoff(Duration.ofMillis(100), Duration.ofSeconds(3));
    private final Map<String, Claim> claims = new ConcurrentHashMap<>();
    private final List<ClaimListener> listeners = new CopyOnWriteArrayList<>();
    private final Object lock = new Object();
    private final LeaseKeyWatch leaseKeyWatch;
    private volatile LeaseSession session;
    private volatile BrokerAddress registration;
    private volatile boolean closed;

    private OwnershipClaimer(Client client, KeySchema keys, int brokerId, Duration leaseTtl) {
        this.client = client;
        this.kv = client.getKVClient();
        this.keys = keys;
        this.brokerId = brokerId;
        this.ownerValue = EtcdBytes.of(OwnerValue.encode(brokerId));
        this.leaseTtl = leaseTtl;
        this.scheduler = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "leasehold-claimer-" + brokerId);
            thread.setDaemon(true);
            return thread;
        });
        this.leaseKeyWatch = new LeaseKeyWatch(client, keys, this::onLeaseKeyEvent, this::recheckClaims, scheduler);
    }

    /**
     * Grants the session lease (blocking until etcd answers, at most 30 s) and starts keeping it alive.
     *
     * @throws IllegalStateException if etcd does not grant a lease
     */
    public static OwnershipClaimer start(Client client, KeySchema keys, int brokerId, Duration leaseTtl) {
        OwnershipClaimer claimer = new OwnershipClaimer(client, keys, brokerId, leaseTtl);
        try {
            LeaseSession first = claimer.openSession(START_TIMEOUT);
            claimer.session = first;
            long revision = client.getKVClient().get(EtcdBytes.of(keys.partitionLeasesPrefix()),
                    GetOption.builder().withCountOnly(true).build()).get(START_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                    .getHeader().getRevision();
            claimer.leaseKeyWatch.start(revision);
            return claimer;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            claimer.close();
            throw new IllegalStateException("interrupted while starting the etcd session of broker " + brokerId, e);
        } catch (Exception e) {
            claimer.close();
            throw new IllegalStateException("could not start an etcd session for broker " + brokerId + ": " + e, e);
        }
    }

    public int brokerId() {
        return brokerId;
    }

    /** The current session's lease id, or 0 while a lost session is being replaced. */
    public long leaseId() {
        LeaseSession current = session;
        return current == null ? 0 : current.leaseId();
    }

    public boolean isSessionAlive() {
        LeaseSession current = session;
        return current != null && current.isAlive();
    }

    /** Publishes {@code P/brokers/{id}} on the session lease; re-published on every new session. */
    public CompletableFuture<Void> registerBroker(BrokerAddress self) {
        if (self.id() != brokerId) {
            throw new IllegalArgumentException("claimer of broker " + brokerId + " cannot register broker " + self.id());
        }
        registration = self;
        LeaseSession current = session;
        if (current == null || !current.isAlive()) {
            return CompletableFuture.failedFuture(noSession());
        }
        return publishRegistration(current, self);
    }

    public CompletableFuture<ClaimResult> claimPartition(String topic, int partition) {
        return claim(keys.partitionLeaseKey(topic, partition), new PartitionId(topic, partition), null);
    }

    public CompletableFuture<ClaimResult> claimGroup(String group) {
        return claim(keys.groupLeaseKey(group), null, group);
    }

    /** The partition's claim, if this broker currently holds it (as far as it knows). */
    public Optional<Claim> partitionClaim(String topic, int partition) {
        return Optional.ofNullable(claims.get(keys.partitionLeaseKey(topic, partition)));
    }

    public Optional<Claim> groupClaim(String group) {
        return Optional.ofNullable(claims.get(keys.groupLeaseKey(group)));
    }

    /**
     * Commits {@code puts} (persistent keys, not on the lease) in one transaction that succeeds
     * only if the claim's key still holds this broker's id with the claim's epoch. A claim this
     * claimer no longer holds fails without asking etcd; a commit etcd rejects drops the claim
     * and tells the listeners.
     *
     * @return true if committed
     */
    public CompletableFuture<Boolean> commitFenced(Claim claim, Map<String, String> puts) {
        if (!claim.equals(claims.get(claim.key()))) {
            return CompletableFuture.completedFuture(false);
        }
        Op[] writes = puts.entrySet().stream()
                .map(put -> Op.put(EtcdBytes.of(put.getKey()), EtcdBytes.of(put.getValue()), PutOption.DEFAULT))
                .toArray(Op[]::new);
        return kv.txn().If(stillStands(claim)).Then(writes).commit().thenApply(response -> {
            if (!response.isSucceeded()) {
                LOG.warn("fenced commit refused: {} no longer holds {} at epoch {}", brokerId, claim.key(), claim.epoch());
                drop(claim);
            }
            return response.isSucceeded();
        });
    }

    /** Gives the claim up: forgets it, tells the listeners, and deletes the key if it is still this claim's. */
    public CompletableFuture<Void> release(Claim claim) {
        drop(claim);
        ByteSequence key = EtcdBytes.of(claim.key());
        return kv.txn().If(stillStands(claim)).Then(Op.delete(key, DeleteOption.DEFAULT)).commit()
                .thenApply(response -> null);
    }

    /** Releases every claim, e.g. on graceful shutdown, so others can take over without waiting for the TTL. */
    public CompletableFuture<Void> releaseAll() {
        return CompletableFuture.allOf(List.copyOf(claims.values()).stream().map(this::release)
                .toArray(CompletableFuture[]::new));
    }

    public void addListener(ClaimListener listener) {
        listeners.add(listener);
    }

    /** Stops the keep-alive and revokes the lease, which deletes every key on it; listeners are not called. */
    @Override
    public void close() {
        LeaseSession last;
        synchronized (lock) {
            closed = true;
            last = session;
            session = null;
            claims.clear();
        }
        leaseKeyWatch.close();
        scheduler.shutdownNow();
        if (last != null) {
            last.close();
        }
    }

    private CompletableFuture<ClaimResult> claim(String key, PartitionId partition, String group) {
        LeaseSession current = session;
        if (current == null || !current.isAlive()) {
            return CompletableFuture.failedFuture(noSession());
        }
        Claim held = claims.get(key);
        if (held != null && held.leaseId() == current.leaseId()) {
            return CompletableFuture.completedFuture(new ClaimResult.Won(held));
        }
        ByteSequence etcdKey = EtcdBytes.of(key);
        long lease = current.leaseId();
        return kv.txn()
                .If(new Cmp(etcdKey, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                .Then(Op.put(etcdKey, ownerValue, PutOption.builder().withLeaseId(lease).build()))
                .Else(Op.get(etcdKey, GetOption.DEFAULT))
                .commit()
                .thenApply(response -> outcome(response, current, key, partition, group));
    }

    private ClaimResult outcome(TxnResponse response, LeaseSession claimedOn, String key, PartitionId partition,
                                String group) {
        if (response.isSucceeded()) {
            // The put created the key, so its create_revision is the transaction's revision.
            return won(new Claim(partition, group, key, brokerId, response.getHeader().getRevision(), claimedOn.leaseId()),
                    claimedOn);
        }
        List<KeyValue> found = response.getGetResponses().get(0).getKvs();
        if (found.isEmpty()) {
            throw new IllegalStateException("etcd reported " + key + " as existing but returned no value");
        }
        KeyValue current = found.get(0);
        OptionalInt owner = OwnerValue.parse(EtcdBytes.text(current.getValue()));
        if (owner.isPresent() && owner.getAsInt() == brokerId && current.getLease() == claimedOn.leaseId()) {
            return won(new Claim(partition, group, key, brokerId, current.getCreateRevision(), claimedOn.leaseId()),
                    claimedOn);
        }
        return new ClaimResult.HeldByOther(owner.orElse(-1), current.getCreateRevision());
    }

    private ClaimResult won(Claim claim, LeaseSession claimedOn) {
        synchronized (lock) {
            if (session != claimedOn || !claimedOn.isAlive()) {
                // The key sits on a lost lease and goes with it; it never counted as ours.
                throw new IllegalStateException("broker " + brokerId + " lost its etcd session while claiming " + claim.key());
            }
            claims.put(claim.key(), claim);
        }
        return new ClaimResult.Won(claim);
    }

    private Cmp[] stillStands(Claim claim) {
        ByteSequence key = EtcdBytes.of(claim.key());
        return new Cmp[] {
            new Cmp(key, Cmp.Op.EQUAL, CmpTarget.value(EtcdBytes.of(OwnerValue.encode(claim.brokerId())))),
            new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(claim.epoch())),
        };
    }

    private void drop(Claim claim) {
        if (claims.remove(claim.key(), claim)) {
            listeners.forEach(listener -> listener.onClaimLost(claim));
        }
    }

    private void onLeaseKeyEvent(WatchEvent event) {
        Claim claim = claims.get(EtcdBytes.text(event.getKeyValue().getKey()));
        // An event older than the claim (say, the deletion of the key's previous incarnation,
        // delivered late) says nothing about the claim.
        if (claim == null || event.getKeyValue().getModRevision() < claim.epoch()) {
            return;
        }
        if (!(event.getEventType() == WatchEvent.EventType.PUT && stands(claim, event.getKeyValue()))) {
            LOG.warn("broker {} lost {} (epoch {}): the key was {}", brokerId, claim.key(), claim.epoch(),
                    event.getEventType() == WatchEvent.EventType.DELETE ? "deleted" : "overwritten");
            drop(claim);
        }
    }

    private boolean stands(Claim claim, KeyValue current) {
        return current.getCreateRevision() == claim.epoch() && current.getLease() == claim.leaseId()
                && current.getValue().equals(ownerValue);
    }

    /** After the lease key watch missed events: read every held key and drop the claims that no longer stand. */
    private void recheckClaims() {
        for (Claim claim : List.copyOf(claims.values())) {
            kv.get(EtcdBytes.of(claim.key())).whenComplete((response, error) -> {
                if (error == null && (response.getKvs().isEmpty() || !stands(claim, response.getKvs().get(0)))) {
                    LOG.warn("broker {} lost {} (epoch {}) while its watch was interrupted", brokerId, claim.key(), claim.epoch());
                    drop(claim);
                }
            });
        }
    }

    private LeaseSession openSession(Duration timeout) throws Exception {
        LeaseSession opened = LeaseSession.open(client.getLeaseClient(), leaseTtl, timeout, this::onSessionLost);
        LOG.info("broker {} holds etcd session lease {} (TTL {})", brokerId, Long.toHexString(opened.leaseId()), leaseTtl);
        return opened;
    }

    private void onSessionLost(LeaseSession lost, String reason) {
        synchronized (lock) {
            if (session != lost) {
                return;
            }
            session = null;
            claims.clear();
        }
        LOG.warn("broker {} lost its etcd session, dropping every claim: {}", brokerId, reason);
        listeners.forEach(ClaimListener::onSessionLost);
        lost.revokeQuietly();
        scheduleRenewal(Duration.ZERO);
    }

    private void scheduleRenewal(Duration delay) {
        if (!closed) {
            scheduler.schedule(this::renewSession, delay.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private void renewSession() {
        LeaseSession renewed;
        try {
            renewed = openSession(GRANT_TIMEOUT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        } catch (Exception e) {
            Duration delay = sessionBackoff.next();
            LOG.warn("broker {} could not open a new etcd session, retrying in {} ms: {}", brokerId, delay.toMillis(), e.toString());
            scheduleRenewal(delay);
            return;
        }
        synchronized (lock) {
            if (closed) {
                renewed.close();
                return;
            }
            session = renewed;
        }
        sessionBackoff.reset();
        BrokerAddress self = registration;
        if (self != null) {
            publishRegistration(renewed, self).whenComplete((ok, error) -> {
                if (error != null) {
                    LOG.warn("broker {} could not re-register on its new session: {}", brokerId, error.toString());
                }
            });
        }
    }

    private CompletableFuture<Void> publishRegistration(LeaseSession on, BrokerAddress self) {
        return kv.put(EtcdBytes.of(keys.brokerKey(brokerId)), EtcdBytes.of(BrokerRegistration.toJson(self)),
                PutOption.builder().withLeaseId(on.leaseId()).build()).thenApply(response -> null);
    }

    private IllegalStateException noSession() {
        return new IllegalStateException("broker " + brokerId + " has no live etcd session"
                + (closed ? " (claimer closed)" : " (lost; a new one is being set up)"));
    }
}
