package io.leasehold.routing.watch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.leasehold.routing.claim.Claim;
import io.leasehold.routing.claim.ClaimResult;
import io.leasehold.routing.claim.OwnershipClaimer;
import io.leasehold.routing.etcd.EtcdBytes;
import io.leasehold.routing.keys.KeySchema;
import io.leasehold.routing.snapshot.BrokerAddress;
import io.leasehold.routing.snapshot.Ownership;
import io.leasehold.routing.snapshot.PartitionId;
import io.leasehold.routing.snapshot.RoutingSnapshot;
import io.leasehold.routing.testing.EtcdExtension;
import io.leasehold.routing.testing.EtcdServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(EtcdExtension.class)
class OwnershipWatcherTest {

    private static final Duration CONVERGE = Duration.ofSeconds(10);
    private static final Duration LONG_HOLD = Duration.ofMinutes(5);

    private final EtcdServer etcd;
    private final List<AutoCloseable> resources = new ArrayList<>();
    private KeySchema keys;
    private Client client;
    private KV kv;

    OwnershipWatcherTest(EtcdServer etcd) {
        this.etcd = etcd;
    }

    @BeforeEach
    void setUp() {
        keys = new KeySchema("/watcher-test-" + System.nanoTime());
        client = Client.builder().endpoints(etcd.endpoint()).build();
        resources.add(client);
        kv = client.getKVClient();
    }

    @AfterEach
    void tearDown() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    @Test
    void claimShowsUpInTheWatchersSnapshot() throws Exception {
        OwnershipWatcher watcher = loadedWatcher();
        OwnershipClaimer claimer = OwnershipClaimer.start(client, keys, 4, Duration.ofSeconds(10));
        resources.add(claimer);
        BrokerAddress address = new BrokerAddress(4, "127.0.0.1", 19094, "rack-a");

        claimer.registerBroker(address).get(5, TimeUnit.SECONDS);
        Claim partition = won(claimer.claimPartition("orders", 2));
        Claim group = won(claimer.claimGroup("billing"));

        await().atMost(CONVERGE).untilAsserted(() -> {
            RoutingSnapshot snapshot = watcher.snapshot();
            assertThat(snapshot.partitionOwner("orders", 2)).isEqualTo(new Ownership(4, partition.epoch()));
            assertThat(snapshot.groupOwner("billing")).isEqualTo(new Ownership(4, group.epoch()));
            assertThat(snapshot.broker(4)).isEqualTo(address);
            assertThat(snapshot.revision()).isGreaterThanOrEqualTo(group.epoch());
        });
        assertThat(watcher.staleness()).isZero();

        claimer.release(partition).get(5, TimeUnit.SECONDS);
        await().atMost(CONVERGE).until(() -> watcher.snapshot().partitionOwner("orders", 2) == null);
    }

    @Test
    void initialLoadSeesWhatWasWrittenBefore() throws Exception {
        put(keys.partitionLeaseKey("orders", 0), "1");
        put(keys.groupLeaseKey("billing"), "2");
        put(keys.brokerKey(1), "{\"host\":\"127.0.0.1\",\"port\":19091,\"rack\":null}");

        OwnershipWatcher watcher = loadedWatcher();

        RoutingSnapshot snapshot = watcher.snapshot();
        assertThat(snapshot.partitionOwner("orders", 0))
                .isEqualTo(new Ownership(1, read(keys.partitionLeaseKey("orders", 0)).getCreateRevision()));
        assertThat(snapshot.groupOwner("billing").brokerId()).isEqualTo(2);
        assertThat(snapshot.broker(1)).isEqualTo(new BrokerAddress(1, "127.0.0.1", 19091, null));
        assertThat(watcher.isLoaded()).isTrue();
    }

    @Test
    void writesRacingTheInitialLoadAreNotLost() throws Exception {
        // Enough keys for a multi-page load, so writes land between pages and before the watch starts.
        putAll(partitionKeys("preloaded", 15_000, "1"));
        List<CompletableFuture<?>> racing = new ArrayList<>();
        Thread writer = new Thread(() -> {
            for (int i = 0; i < 400; i++) {
                racing.add(kv.put(EtcdBytes.of(keys.partitionLeaseKey("racing", i)), EtcdBytes.of("2")));
                racing.add(kv.delete(EtcdBytes.of(keys.partitionLeaseKey("preloaded", i * 30))));
                racing.add(kv.put(EtcdBytes.of(keys.partitionLeaseKey("preloaded", i * 30 + 1)), EtcdBytes.of("3")));
            }
        });
        writer.start();
        OwnershipWatcher watcher = OwnershipWatcher.start(client, keys);
        resources.add(watcher);
        writer.join();
        CompletableFuture.allOf(racing.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);

        Map<PartitionId, Ownership> truth = partitionsInEtcd();
        assertThat(truth).hasSize(15_000);
        await().atMost(CONVERGE).untilAsserted(() -> assertThat(watcher.snapshot().partitions()).isEqualTo(truth));
        assertThat(watcher.snapshot().partitionOwner("racing", 399).brokerId()).isEqualTo(2);
        assertThat(watcher.snapshot().partitionOwner("preloaded", 30)).isNull();
        assertThat(watcher.snapshot().partitionOwner("preloaded", 31).brokerId()).isEqualTo(3);
    }

    @Test
    void snapshotOfTenThousandPartitionsLoads() throws Exception {
        Map<String, String> entries = new HashMap<>();
        for (int topic = 0; topic < 100; topic++) {
            entries.putAll(partitionKeys("topic-" + topic, 100, Integer.toString(topic % 7)));
        }
        putAll(entries);

        OwnershipWatcher watcher = loadedWatcher();

        RoutingSnapshot snapshot = watcher.snapshot();
        assertThat(snapshot.partitionCount()).isEqualTo(10_000);
        assertThat(snapshot.partitions()).isEqualTo(partitionsInEtcd());
        assertThat(snapshot.partitionOwner("topic-13", 99).brokerId()).isEqualTo(6);
    }

    @Test
    void invalidationDropsOnlyTheRejectedOwnershipUntilEtcdNamesANewOwner() throws Exception {
        String key = keys.partitionLeaseKey("orders", 1);
        put(key, "1");
        OwnershipWatcher watcher = loadedWatcher();
        Ownership rejected = watcher.snapshot().partitionOwner("orders", 1);
        assertThat(rejected.brokerId()).isEqualTo(1);

        assertThat(watcher.invalidatePartition("orders", 1, new Ownership(1, rejected.epoch() - 1))).isFalse();
        assertThat(watcher.invalidatePartition("orders", 1, new Ownership(2, rejected.epoch()))).isFalse();
        assertThat(watcher.snapshot().partitionOwner("orders", 1)).isEqualTo(rejected);

        assertThat(watcher.invalidatePartition("orders", 1, rejected)).isTrue();
        assertThat(watcher.invalidatePartition("orders", 1, rejected)).as("already queued").isFalse();
        await().atMost(CONVERGE).until(() -> watcher.snapshot().partitionOwner("orders", 1) == null);
        assertThat(watcher.invalidatePartition("orders", 1, rejected)).isFalse();

        // A write that still names the rejected ownership (same value, same create_revision) keeps it dropped.
        put(key, "1");
        String marker = keys.partitionLeaseKey("marker", 0);
        put(marker, "9");
        await().atMost(CONVERGE).until(() -> watcher.snapshot().partitionOwner("marker", 0) != null);
        assertThat(watcher.snapshot().partitionOwner("orders", 1)).isNull();

        // A new ownership of the key brings the route back.
        kv.delete(EtcdBytes.of(key)).get(5, TimeUnit.SECONDS);
        put(key, "2");
        await().atMost(CONVERGE).untilAsserted(() -> assertThat(watcher.snapshot().partitionOwner("orders", 1))
                .isEqualTo(new Ownership(2, read(key).getCreateRevision())));
    }

    @Test
    void ownerThatRejectedButKeepsItsKeyIsRoutedToAgainAfterTheHold() throws Exception {
        put(keys.partitionLeaseKey("orders", 1), "1");
        put(keys.groupLeaseKey("billing"), "1");
        OwnershipWatcher watcher = loadedWatcher(Duration.ofMillis(300));
        Ownership partitionOwner = watcher.snapshot().partitionOwner("orders", 1);
        Ownership groupOwner = watcher.snapshot().groupOwner("billing");

        assertThat(watcher.invalidatePartition("orders", 1, partitionOwner)).isTrue();
        assertThat(watcher.invalidateGroup("billing", groupOwner)).isTrue();
        await().atMost(CONVERGE).pollInterval(Duration.ofMillis(2)).until(() ->
                watcher.snapshot().partitionOwner("orders", 1) == null && watcher.snapshot().groupOwner("billing") == null);

        // Nothing changes in etcd: the owner that said "not mine" still holds its keys.
        await().atMost(CONVERGE).untilAsserted(() -> {
            assertThat(watcher.snapshot().partitionOwner("orders", 1)).isEqualTo(partitionOwner);
            assertThat(watcher.snapshot().groupOwner("billing")).isEqualTo(groupOwner);
        });
        // And a new rejection drops it again.
        assertThat(watcher.invalidatePartition("orders", 1, partitionOwner)).isTrue();
    }

    @Test
    void dropsAreRebuiltOffTheCallersThreadsAndConcurrentDropsAndWatchEventsLoseNothing() throws Exception {
        putAll(partitionKeys("busy", 400, "1"));
        OwnershipWatcher watcher = loadedWatcher();
        Set<String> publishingThreads = ConcurrentHashMap.newKeySet();
        watcher.addListener(snapshot -> publishingThreads.add(Thread.currentThread().getName()));
        Map<Integer, Ownership> owners = new HashMap<>();
        for (int p = 0; p < 200; p++) {
            owners.put(p, watcher.snapshot().partitionOwner("busy", p));
        }

        // Four stand-ins for event loops drop 50 routes each while etcd moves partitions 200-399.
        List<Thread> callers = new ArrayList<>();
        AtomicInteger accepted = new AtomicInteger();
        for (int t = 0; t < 4; t++) {
            int first = t * 50;
            callers.add(new Thread(() -> {
                for (int p = first; p < first + 50; p++) {
                    if (watcher.invalidatePartition("busy", p, owners.get(p))) {
                        accepted.incrementAndGet();
                    }
                }
            }, "event-loop-stand-in-" + t));
        }
        callers.forEach(Thread::start);
        for (int p = 200; p < 400; p++) {
            put(keys.partitionLeaseKey("busy", p), "2");
        }
        for (Thread caller : callers) {
            caller.join(TimeUnit.SECONDS.toMillis(30));
        }
        assertThat(accepted.get()).as("drops accepted").isEqualTo(200);

        await().atMost(CONVERGE).untilAsserted(() -> {
            RoutingSnapshot snapshot = watcher.snapshot();
            for (int p = 0; p < 200; p++) {
                assertThat(snapshot.partitionOwner("busy", p)).as("dropped busy-" + p).isNull();
            }
            for (int p = 200; p < 400; p++) {
                assertThat(snapshot.partitionOwner("busy", p)).as("moved busy-" + p).isNotNull()
                        .extracting(Ownership::brokerId).isEqualTo(2);
            }
        });
        assertThat(publishingThreads).as("threads that rebuilt a snapshot")
                .noneMatch(name -> name.startsWith("event-loop-stand-in"));
    }

    @Test
    void aDroppedOwnerThatTakesAWriteIsRoutedToAgainWithoutWaitingForTheHold() throws Exception {
        put(keys.partitionLeaseKey("orders", 1), "1");
        OwnershipWatcher watcher = loadedWatcher();
        Ownership rejected = watcher.snapshot().partitionOwner("orders", 1);
        assertThat(watcher.invalidatePartition("orders", 1, rejected)).isTrue();
        await().atMost(CONVERGE).until(() -> watcher.snapshot().partitionOwner("orders", 1) == null);
        assertThat(watcher.suppressedPartitionOwner("orders", 1)).isEqualTo(1);

        watcher.ownerAccepted("orders", 1, 2);
        assertThat(watcher.suppressedPartitionOwner("orders", 1)).as("another broker's write proves nothing")
                .isEqualTo(1);

        watcher.ownerAccepted("orders", 1, 1);
        await().atMost(CONVERGE).untilAsserted(() -> {
            assertThat(watcher.snapshot().partitionOwner("orders", 1)).isEqualTo(rejected);
            assertThat(watcher.suppressedPartitionOwner("orders", 1)).isEqualTo(RoutingTable.NONE_SUPPRESSED);
        });
    }

    @Test
    void groupInvalidationIsConditionalToo() throws Exception {
        put(keys.groupLeaseKey("billing"), "3");
        OwnershipWatcher watcher = loadedWatcher();
        Ownership owner = watcher.snapshot().groupOwner("billing");

        assertThat(watcher.invalidateGroup("billing", new Ownership(4, owner.epoch()))).isFalse();
        assertThat(watcher.invalidateGroup("billing", owner)).isTrue();
        await().atMost(CONVERGE).until(() -> watcher.snapshot().groupOwner("billing") == null);

        put(keys.groupLeaseKey("billing"), "4");
        await().atMost(CONVERGE).until(() -> watcher.snapshot().groupOwner("billing") != null);
        assertThat(watcher.snapshot().groupOwner("billing").brokerId()).isEqualTo(4);
    }

    @Test
    void malformedKeysAndValuesAreSkippedWithoutStoppingTheWatch() throws Exception {
        put(keys.partitionLeasesPrefix() + "bad topic/0", "1");
        put(keys.partitionLeasesPrefix() + "orders/x", "1");
        put(keys.partitionLeaseKey("orders", 0), "one");
        put(keys.brokerKey(1), "{\"host\":\"h\"}");
        put(keys.brokersPrefix() + "abc", "{\"host\":\"h\",\"port\":1}");
        put(keys.partitionLeaseKey("orders", 1), "1");
        OwnershipWatcher watcher = loadedWatcher();
        assertThat(watcher.snapshot().partitions()).containsOnlyKeys(new PartitionId("orders", 1));
        assertThat(watcher.snapshot().brokers()).isEmpty();

        put(keys.partitionLeaseKey("orders", 1), "not-a-broker");
        put(keys.groupLeasesPrefix(), "1");
        put(keys.partitionLeaseKey("orders", 2), "2");
        await().atMost(CONVERGE).until(() -> watcher.snapshot().partitionOwner("orders", 2) != null);
        assertThat(watcher.snapshot().partitions()).containsOnlyKeys(new PartitionId("orders", 2));
        assertThat(watcher.staleness()).isZero();
    }

    @Test
    void listenersHearEveryNewSnapshot() throws Exception {
        OwnershipWatcher watcher = loadedWatcher();
        List<RoutingSnapshot> heard = new CopyOnWriteArrayList<>();
        watcher.addListener(heard::add);

        put(keys.partitionLeaseKey("orders", 0), "1");

        await().atMost(CONVERGE).until(() -> !heard.isEmpty());
        assertThat(heard.get(heard.size() - 1).partitionOwner("orders", 0).brokerId()).isEqualTo(1);
        assertThat(heard.get(heard.size() - 1)).isSameAs(watcher.snapshot());
    }

    /** A watcher whose rejected routes stay dropped longer than any test waits. */
    private OwnershipWatcher loadedWatcher() throws InterruptedException {
        return loadedWatcher(LONG_HOLD);
    }

    private OwnershipWatcher loadedWatcher(Duration rejectionHold) throws InterruptedException {
        OwnershipWatcher watcher = OwnershipWatcher.start(client, keys, rejectionHold);
        resources.add(watcher);
        assertThat(watcher.awaitLoaded(CONVERGE)).isTrue();
        return watcher;
    }

    @Test
    void brokersListedOnlyInTheMetadataSnapshotAreRoutableAndLeaderFieldsAreIgnored() throws Exception {
        put(keys.metadataSnapshotKey(), kafscaleSnapshot(0, 19090, 1, 19091));
        put(keys.partitionLeaseKey("orders", 0), "1");

        OwnershipWatcher watcher = loadedWatcher();

        RoutingSnapshot snapshot = watcher.snapshot();
        assertThat(snapshot.brokers()).containsExactly(new BrokerAddress(0, "127.0.0.1", 19090, null),
                new BrokerAddress(1, "127.0.0.1", 19091, null));
        // The snapshot's static Leader says 0; only the lease key says who owns the partition.
        assertThat(snapshot.partitionOwner("orders", 0).brokerId()).isEqualTo(1);

        put(keys.metadataSnapshotKey(), kafscaleSnapshot(0, 19090, 2, 19092));
        await().atMost(CONVERGE).untilAsserted(() -> assertThat(watcher.snapshot().brokers())
                .extracting(BrokerAddress::id).containsExactly(0, 2));
        kv.delete(EtcdBytes.of(keys.metadataSnapshotKey())).get(5, TimeUnit.SECONDS);
        await().atMost(CONVERGE).until(() -> watcher.snapshot().brokers().isEmpty());
    }

    @Test
    void aRegistrationWinsOverTheMetadataSnapshotForTheSameId() throws Exception {
        put(keys.metadataSnapshotKey(), kafscaleSnapshot(0, 19090, 1, 19091));
        put(keys.brokerKey(1), "{\"host\":\"10.0.0.1\",\"port\":29091,\"rack\":null}");

        OwnershipWatcher watcher = loadedWatcher();

        assertThat(watcher.snapshot().broker(1)).isEqualTo(new BrokerAddress(1, "10.0.0.1", 29091, null));
        kv.delete(EtcdBytes.of(keys.brokerKey(1))).get(5, TimeUnit.SECONDS);
        await().atMost(CONVERGE).untilAsserted(() -> assertThat(watcher.snapshot().broker(1))
                .isEqualTo(new BrokerAddress(1, "127.0.0.1", 19091, null)));
    }

    @Test
    void aMalformedMetadataSnapshotKeepsTheLastGoodBrokersAndIsCountedOncePerRevision() throws Exception {
        put(keys.metadataSnapshotKey(), kafscaleSnapshot(0, 19090, 1, 19091));
        OwnershipWatcher watcher = loadedWatcher();
        assertThat(watcher.snapshot().brokers()).hasSize(2);

        put(keys.metadataSnapshotKey(), "{\"Brokers\":[{\"NodeID\":0}]}");
        await().atMost(CONVERGE).until(() -> watcher.rejectedMetadataSnapshots() == 1);
        put(keys.partitionLeaseKey("orders", 0), "1");
        await().atMost(CONVERGE).until(() -> watcher.snapshot().partitionOwner("orders", 0) != null);
        assertThat(watcher.snapshot().brokers()).extracting(BrokerAddress::id).containsExactly(0, 1);

        put(keys.metadataSnapshotKey(), "not json");
        await().atMost(CONVERGE).until(() -> watcher.rejectedMetadataSnapshots() == 2);
        assertThat(watcher.snapshot().brokers()).extracting(BrokerAddress::id).containsExactly(0, 1);

        put(keys.metadataSnapshotKey(), kafscaleSnapshot(3, 19093, 4, 19094));
        await().atMost(CONVERGE).untilAsserted(() -> assertThat(watcher.snapshot().brokers())
                .extracting(BrokerAddress::id).containsExactly(3, 4));
        assertThat(watcher.rejectedMetadataSnapshots()).isEqualTo(2);
    }

    /** A snapshot in KafScale's shape whose static leader of orders-0 is the first broker. */
    private static String kafscaleSnapshot(int firstId, int firstPort, int secondId, int secondPort) {
        return "{\"Brokers\":[{\"NodeID\":" + firstId + ",\"Host\":\"127.0.0.1\",\"Port\":" + firstPort
                + ",\"Rack\":null,\"UnknownTags\":{}},{\"NodeID\":" + secondId + ",\"Host\":\"127.0.0.1\",\"Port\":"
                + secondPort + ",\"Rack\":null,\"UnknownTags\":{}}],\"ControllerID\":" + firstId
                + ",\"Topics\":[{\"ErrorCode\":0,\"Topic\":\"orders\",\"IsInternal\":false,\"Partitions\":[{\"ErrorCode\":0,"
                + "\"Partition\":0,\"Leader\":" + firstId + ",\"LeaderEpoch\":-1,\"Replicas\":[" + firstId
                + "],\"ISR\":[" + firstId + "],\"OfflineReplicas\":null,\"UnknownTags\":{}}],\"UnknownTags\":{}}],"
                + "\"ClusterName\":\"demo\",\"ClusterID\":\"uid\"}";
    }

    private Claim won(CompletableFuture<ClaimResult> result) throws Exception {
        return ((ClaimResult.Won) result.get(5, TimeUnit.SECONDS)).claim();
    }

    private Map<String, String> partitionKeys(String topic, int count, String owner) {
        Map<String, String> entries = new HashMap<>();
        for (int p = 0; p < count; p++) {
            entries.put(keys.partitionLeaseKey(topic, p), owner);
        }
        return entries;
    }

    /** Writes in transactions of 128 puts (etcd's default limit), a few in flight at a time. */
    private void putAll(Map<String, String> entries) throws Exception {
        List<Op> ops = new ArrayList<>();
        entries.forEach((key, value) -> ops.add(Op.put(EtcdBytes.of(key), EtcdBytes.of(value), PutOption.DEFAULT)));
        List<CompletableFuture<?>> inFlight = new ArrayList<>();
        for (int from = 0; from < ops.size(); from += 128) {
            inFlight.add(kv.txn().Then(ops.subList(from, Math.min(ops.size(), from + 128)).toArray(Op[]::new)).commit());
            if (inFlight.size() == 8) {
                CompletableFuture.allOf(inFlight.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
                inFlight.clear();
            }
        }
        CompletableFuture.allOf(inFlight.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
    }

    private void put(String key, String value) throws Exception {
        kv.put(EtcdBytes.of(key), EtcdBytes.of(value)).get(5, TimeUnit.SECONDS);
    }

    private KeyValue read(String key) throws Exception {
        return kv.get(EtcdBytes.of(key)).get(5, TimeUnit.SECONDS).getKvs().get(0);
    }

    private Map<PartitionId, Ownership> partitionsInEtcd() throws Exception {
        Map<PartitionId, Ownership> truth = new HashMap<>();
        GetOption all = GetOption.builder().isPrefix(true).build();
        for (KeyValue entry : kv.get(EtcdBytes.of(keys.partitionLeasesPrefix()), all).get(30, TimeUnit.SECONDS).getKvs()) {
            PartitionId id = keys.parsePartitionLeaseKey(EtcdBytes.text(entry.getKey())).orElseThrow();
            truth.put(id, new Ownership(Integer.parseInt(EtcdBytes.text(entry.getValue())), entry.getCreateRevision()));
        }
        return truth;
    }
}
