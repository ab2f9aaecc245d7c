package io.leasehold.routing.claim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.leasehold.routing.etcd.EtcdBytes;
import io.leasehold.routing.keys.BrokerRegistration;
import io.leasehold.routing.keys.KeySchema;
import io.leasehold.routing.snapshot.BrokerAddress;
import io.leasehold.routing.testing.EtcdExtension;
import io.leasehold.routing.testing.EtcdServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(EtcdExtension.class)
class OwnershipClaimerTest {

    private static final Duration TTL = Duration.ofSeconds(2);

    private final EtcdServer etcd;
    private final List<AutoCloseable> resources = new ArrayList<>();
    private KeySchema keys;
    private Client client;

    OwnershipClaimerTest(EtcdServer etcd) {
        this.etcd = etcd;
    }

    @BeforeEach
    void setUp() {
        // A fresh prefix per test keeps tests independent on the shared etcd.
        keys = new KeySchema("/claimer-test-" + System.nanoTime());
        client = newClient();
    }

    @AfterEach
    void tearDown() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    @Test
    void winsAFreePartitionWithTheKeysCreateRevisionAsEpoch() throws Exception {
        OwnershipClaimer claimer = claimer(client, 1);

        Claim claim = won(claimer.claimPartition("orders", 3));

        KeyValue stored = read(keys.partitionLeaseKey("orders", 3));
        assertThat(EtcdBytes.text(stored.getValue())).isEqualTo("1");
        assertThat(stored.getLease()).isEqualTo(claimer.leaseId());
        assertThat(claim.epoch()).isEqualTo(stored.getCreateRevision());
        assertThat(claim.partition().topic()).isEqualTo("orders");
        assertThat(claim.leaseId()).isEqualTo(claimer.leaseId());
        assertThat(claimer.partitionClaim("orders", 3)).contains(claim);
        assertThat(claimer.partitionClaim("orders", 4)).isEmpty();
    }

    @Test
    void reclaimingItsOwnKeyWinsTheSameEpochAgain() throws Exception {
        OwnershipClaimer claimer = claimer(client, 1);
        Claim first = won(claimer.claimGroup("billing"));

        Claim again = won(claimer.claimGroup("billing"));

        assertThat(again).isEqualTo(first);
        assertThat(read(keys.groupLeaseKey("billing")).getVersion()).isEqualTo(1);
    }

    @Test
    void anotherBrokerFindsTheKeyHeld() throws Exception {
        OwnershipClaimer one = claimer(client, 1);
        OwnershipClaimer two = claimer(client, 2);
        Claim claim = won(one.claimPartition("orders", 0));

        ClaimResult result = two.claimPartition("orders", 0).get(5, TimeUnit.SECONDS);

        assertThat(result).isEqualTo(new ClaimResult.HeldByOther(1, claim.epoch()));
        assertThat(two.partitionClaim("orders", 0)).isEmpty();
    }

    @Test
    void twoClaimersWithTheSameBrokerIdNeverBothOwnAPartition() throws Exception {
        OwnershipClaimer original = claimer(client, 7);
        OwnershipClaimer impostor = claimer(newClient(), 7);
        Claim claim = won(original.claimPartition("orders", 1));

        ClaimResult result = impostor.claimPartition("orders", 1).get(5, TimeUnit.SECONDS);

        assertThat(result).isEqualTo(new ClaimResult.HeldByOther(7, claim.epoch()));
        assertThat(impostor.partitionClaim("orders", 1)).isEmpty();
        assertThat(impostor.commitFenced(claim, Map.of(keys.nextOffsetKey("orders", 1), "99")).get(5, TimeUnit.SECONDS))
                .isFalse();
    }

    @Test
    void racingClaimersHaveExactlyOneWinnerEveryTime() throws Exception {
        int claimers = 5;
        List<OwnershipClaimer> racers = new ArrayList<>();
        for (int id = 0; id < claimers; id++) {
            racers.add(claimer(id % 2 == 0 ? client : newClient(), id));
        }
        for (int round = 0; round < 100; round++) {
            int partition = round;
            CountDownLatch start = new CountDownLatch(1);
            List<CompletableFuture<ClaimResult>> results = new ArrayList<>();
            List<Thread> threads = new ArrayList<>();
            for (OwnershipClaimer racer : racers) {
                CompletableFuture<ClaimResult> result = new CompletableFuture<>();
                results.add(result);
                Thread thread = new Thread(() -> {
                    try {
                        start.await();
                        racer.claimPartition("contested", partition).whenComplete((r, e) -> {
                            if (e != null) {
                                result.completeExceptionally(e);
                            } else {
                                result.complete(r);
                            }
                        });
                    } catch (InterruptedException e) {
                        result.completeExceptionally(e);
                    }
                });
                thread.start();
                threads.add(thread);
            }
            start.countDown();
            List<ClaimResult> outcomes = new ArrayList<>();
            for (CompletableFuture<ClaimResult> result : results) {
                outcomes.add(result.get(10, TimeUnit.SECONDS));
            }
            for (Thread thread : threads) {
                thread.join();
            }
            List<Claim> winners = outcomes.stream().filter(ClaimResult.Won.class::isInstance)
                    .map(r -> ((ClaimResult.Won) r).claim()).toList();
            assertThat(winners).as("winners of round %d", round).hasSize(1);
            Claim winner = winners.get(0);
            assertThat(outcomes).filteredOn(ClaimResult.HeldByOther.class::isInstance)
                    .allSatisfy(r -> assertThat(r).isEqualTo(new ClaimResult.HeldByOther(winner.brokerId(), winner.epoch())));
            assertThat(EtcdBytes.text(read(keys.partitionLeaseKey("contested", partition)).getValue()))
                    .isEqualTo(Integer.toString(winner.brokerId()));
        }
    }

    @Test
    void claimerThatStopsItsKeepAliveLosesItsKeysAfterTheTtlAndAnotherClaimsThem() throws Exception {
        Client doomed = newClient();
        OwnershipClaimer stopped = claimer(doomed, 1);
        RecordingListener heard = new RecordingListener();
        stopped.addListener(heard);
        won(stopped.claimPartition("orders", 5));
        OwnershipClaimer successor = claimer(client, 2);
        assertThat(successor.claimPartition("orders", 5).get(5, TimeUnit.SECONDS))
                .isInstanceOf(ClaimResult.HeldByOther.class);

        // Closing the etcd client ends the keep-alive stream without revoking the lease.
        doomed.close();

        // The closing client may grant a renewal lease before its channel shuts down, and lose that too.
        await().atMost(Duration.ofSeconds(2)).until(() -> heard.sessionLosses.get() >= 1);
        assertThat(stopped.partitionClaim("orders", 5)).isEmpty();
        await().atMost(TTL.plusSeconds(4)).pollInterval(Duration.ofMillis(100))
                .until(() -> readOptional(keys.partitionLeaseKey("orders", 5)).isEmpty());
        Claim taken = won(successor.claimPartition("orders", 5));
        assertThat(taken.brokerId()).isEqualTo(2);
    }

    @Test
    void fencedCommitByAStaleOwnerFailsAndTheNewOwnersCommitLands() throws Exception {
        OwnershipClaimer stale = claimer(client, 1);
        OwnershipClaimer current = claimer(newClient(), 2);
        Claim old = won(stale.claimPartition("orders", 2));
        String nextOffset = keys.nextOffsetKey("orders", 2);
        assertThat(stale.commitFenced(old, Map.of(nextOffset, "10")).get(5, TimeUnit.SECONDS)).isTrue();

        // The stale owner's key goes away (as when its lease expires) and another broker takes over.
        client.getKVClient().delete(EtcdBytes.of(old.key())).get(5, TimeUnit.SECONDS);
        Claim taken = won(current.claimPartition("orders", 2));
        assertThat(taken.epoch()).isGreaterThan(old.epoch());
        assertThat(current.commitFenced(taken, Map.of(nextOffset, "20")).get(5, TimeUnit.SECONDS)).isTrue();

        assertThat(stale.commitFenced(old, Map.of(nextOffset, "11")).get(5, TimeUnit.SECONDS)).isFalse();
        assertThat(EtcdBytes.text(read(nextOffset).getValue())).isEqualTo("20");
        assertThat(stale.partitionClaim("orders", 2)).isEmpty();
    }

    @Test
    void fencedCommitComparesEpochInEtcdNotOnlyTheBrokerId() throws Exception {
        OwnershipClaimer claimer = claimer(client, 1);
        Claim first = won(claimer.claimPartition("orders", 8));
        String nextOffset = keys.nextOffsetKey("orders", 8);
        // Same broker, same value, new incarnation of the key: the old epoch must not commit.
        client.getKVClient().delete(EtcdBytes.of(first.key())).get(5, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(5)).until(() -> claimer.partitionClaim("orders", 8).isEmpty());
        Claim second = won(claimer.claimPartition("orders", 8));
        assertThat(second.epoch()).isGreaterThan(first.epoch());

        assertThat(claimer.commitFenced(first, Map.of(nextOffset, "5")).get(5, TimeUnit.SECONDS)).isFalse();
        assertThat(claimer.commitFenced(second, Map.of(nextOffset, "6")).get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(EtcdBytes.text(read(nextOffset).getValue())).isEqualTo("6");
    }

    @Test
    void keyDeletedBehindTheClaimersBackIsReportedLost() throws Exception {
        OwnershipClaimer claimer = claimer(client, 1);
        RecordingListener heard = new RecordingListener();
        claimer.addListener(heard);
        Claim claim = won(claimer.claimPartition("orders", 6));

        client.getKVClient().delete(EtcdBytes.of(claim.key())).get(5, TimeUnit.SECONDS);

        await().atMost(Duration.ofSeconds(5)).until(() -> heard.lost.contains(claim));
        assertThat(claimer.partitionClaim("orders", 6)).isEmpty();
    }

    @Test
    void lateEventsAboutAReleasedIncarnationDoNotCostTheNewClaim() throws Exception {
        OwnershipClaimer claimer = claimer(client, 1);
        RecordingListener heard = new RecordingListener();
        claimer.addListener(heard);
        Claim marker = won(claimer.claimPartition("marker", 0));
        Claim first = won(claimer.claimPartition("orders", 9));

        claimer.release(first).get(5, TimeUnit.SECONDS);
        Claim second = won(claimer.claimPartition("orders", 9));
        client.getKVClient().delete(EtcdBytes.of(marker.key())).get(5, TimeUnit.SECONDS);

        // Events arrive in revision order: once the marker's deletion is heard, so was the release.
        await().atMost(Duration.ofSeconds(5)).until(() -> heard.lost.contains(marker));
        assertThat(second.epoch()).isGreaterThan(first.epoch());
        assertThat(claimer.partitionClaim("orders", 9)).contains(second);
        assertThat(heard.lost).containsExactly(first, marker);
    }

    @Test
    void releaseDeletesTheKeyAndTellsTheListeners() throws Exception {
        OwnershipClaimer claimer = claimer(client, 1);
        RecordingListener heard = new RecordingListener();
        claimer.addListener(heard);
        Claim partition = won(claimer.claimPartition("orders", 0));
        Claim group = won(claimer.claimGroup("billing"));

        claimer.release(partition).get(5, TimeUnit.SECONDS);
        assertThat(readOptional(partition.key())).isEmpty();
        assertThat(readOptional(group.key())).isPresent();

        claimer.releaseAll().get(5, TimeUnit.SECONDS);
        assertThat(readOptional(group.key())).isEmpty();
        assertThat(heard.lost).containsExactly(partition, group);
        assertThat(claimer.groupClaim("billing")).isEmpty();
    }

    @Test
    void lostSessionDropsEveryClaimAtOnceAndANewSessionReRegistersTheBroker() throws Exception {
        OwnershipClaimer claimer = claimer(client, 3);
        RecordingListener heard = new RecordingListener();
        claimer.addListener(heard);
        BrokerAddress self = new BrokerAddress(3, "127.0.0.1", 19093, null);
        claimer.registerBroker(self).get(5, TimeUnit.SECONDS);
        won(claimer.claimPartition("orders", 0));
        won(claimer.claimGroup("billing"));
        long firstLease = claimer.leaseId();

        client.getLeaseClient().revoke(firstLease).get(5, TimeUnit.SECONDS);

        // Revoking also deletes the keys, so onClaimLost may come first; the session loss must come too.
        await().atMost(Duration.ofSeconds(5)).until(() -> heard.sessionLosses.get() == 1);
        assertThat(claimer.partitionClaim("orders", 0)).isEmpty();
        assertThat(claimer.groupClaim("billing")).isEmpty();
        await().atMost(Duration.ofSeconds(5)).until(() -> claimer.isSessionAlive() && claimer.leaseId() != firstLease);
        await().atMost(Duration.ofSeconds(5)).until(() -> readOptional(keys.brokerKey(3)).isPresent());
        KeyValue registration = read(keys.brokerKey(3));
        assertThat(registration.getLease()).isEqualTo(claimer.leaseId());
        assertThat(BrokerRegistration.parse(3, EtcdBytes.text(registration.getValue()))).isEqualTo(self);
        assertThat(won(claimer.claimPartition("orders", 0)).leaseId()).isEqualTo(claimer.leaseId());
    }

    @Test
    void closingRevokesTheLeaseSoOthersCanClaimAtOnce() throws Exception {
        OwnershipClaimer leaving = OwnershipClaimer.start(client, keys, 1, Duration.ofSeconds(30));
        leaving.registerBroker(new BrokerAddress(1, "127.0.0.1", 19092, "r1")).get(5, TimeUnit.SECONDS);
        won(leaving.claimPartition("orders", 0));

        leaving.close();

        await().atMost(Duration.ofSeconds(5)).until(() -> readOptional(keys.partitionLeaseKey("orders", 0)).isEmpty());
        assertThat(readOptional(keys.brokerKey(1))).isEmpty();
        assertThat(leaving.isSessionAlive()).isFalse();
        assertThatThrownBy(() -> leaving.claimPartition("orders", 0).get(5, TimeUnit.SECONDS))
                .hasMessageContaining("closed");
    }

    @Test
    void refusesToRegisterAnotherBrokersAddress() {
        OwnershipClaimer claimer = claimer(client, 1);
        assertThatThrownBy(() -> claimer.registerBroker(new BrokerAddress(2, "h", 1, null)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("broker 2");
    }

    private Claim won(CompletableFuture<ClaimResult> result) throws Exception {
        ClaimResult outcome = result.get(5, TimeUnit.SECONDS);
        assertThat(outcome).isInstanceOf(ClaimResult.Won.class);
        return ((ClaimResult.Won) outcome).claim();
    }

    private KeyValue read(String key) throws Exception {
        return readOptional(key).orElseThrow(() -> new AssertionError("no key " + key + " in etcd"));
    }

    private Optional<KeyValue> readOptional(String key) throws Exception {
        List<KeyValue> kvs = client.getKVClient().get(EtcdBytes.of(key)).get(5, TimeUnit.SECONDS).getKvs();
        return kvs.stream().findFirst();
    }

    private OwnershipClaimer claimer(Client on, int brokerId) {
        OwnershipClaimer claimer = OwnershipClaimer.start(on, keys, brokerId, TTL);
        resources.add(claimer);
        return claimer;
    }

    private Client newClient() {
        Client created = Client.builder().endpoints(etcd.endpoint()).build();
        resources.add(created);
        return created;
    }

    private static final class RecordingListener implements ClaimListener {
        final List<Claim> lost = new CopyOnWriteArrayList<>();
        final AtomicInteger sessionLosses = new AtomicInteger();

        @Override
        public void onClaimLost(Claim claim) {
            lost.add(claim);
        }

        @Override
        public void onSessionLost() {
            sessionLosses.incrementAndGet();
        }
    }
}
