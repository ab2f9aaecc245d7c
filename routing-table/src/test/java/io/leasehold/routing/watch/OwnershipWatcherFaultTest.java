package io.leasehold.routing.watch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.leasehold.routing.etcd.EtcdBytes;
import io.leasehold.routing.keys.KeySchema;
import io.leasehold.routing.snapshot.Ownership;
import io.leasehold.routing.snapshot.PartitionId;
import io.leasehold.routing.testing.EtcdExtension;
import io.leasehold.routing.testing.EtcdServer;
import io.leasehold.routing.testing.TcpRelay;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The watcher across etcd outages: it keeps serving, reports staleness, and converges afterwards. */
@ExtendWith(EtcdExtension.class)
class OwnershipWatcherFaultTest {

    private static final Duration CONVERGE = Duration.ofSeconds(15);

    private final EtcdServer etcd;
    private final List<AutoCloseable> resources = new ArrayList<>();
    private KeySchema keys;

    OwnershipWatcherFaultTest(EtcdServer etcd) {
        this.etcd = etcd;
    }

    @BeforeEach
    void setUp() {
        keys = new KeySchema("/fault-test-" + System.nanoTime());
    }

    @AfterEach
    void tearDown() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    @Test
    void etcdRestartedMidWatchConvergesToEtcdsState() throws Exception {
        Client client = client(etcd.endpoint());
        KV kv = client.getKVClient();
        put(kv, keys.partitionLeaseKey("orders", 0), "1");
        put(kv, keys.partitionLeaseKey("orders", 1), "1");
        OwnershipWatcher watcher = loadedWatcher(client);

        etcd.stop();

        await().atMost(CONVERGE).until(() -> watcher.staleness().compareTo(Duration.ZERO) > 0);
        assertThat(watcher.snapshot().partitionCount()).as("last snapshot still served").isEqualTo(2);

        etcd.restart();
        put(kv, keys.partitionLeaseKey("orders", 2), "2");
        kv.delete(EtcdBytes.of(keys.partitionLeaseKey("orders", 0))).get(10, TimeUnit.SECONDS);

        await().atMost(CONVERGE).untilAsserted(() -> {
            assertThat(watcher.snapshot().partitions().keySet())
                    .containsExactlyInAnyOrder(new PartitionId("orders", 1), new PartitionId("orders", 2));
            assertThat(watcher.staleness()).isZero();
        });
        put(kv, keys.partitionLeaseKey("orders", 3), "3");
        await().atMost(CONVERGE).until(() -> watcher.snapshot().partitionOwner("orders", 3) != null);
    }

    @Test
    void historyCompactedWhileDisconnectedReloadsAndConverges() throws Exception {
        Client direct = client(etcd.endpoint());
        KV kv = direct.getKVClient();
        TcpRelay relay = TcpRelay.to(etcd);
        resources.add(relay);
        put(kv, keys.partitionLeaseKey("orders", 0), "1");
        put(kv, keys.partitionLeaseKey("orders", 1), "1");
        put(kv, keys.groupLeaseKey("billing"), "1");
        OwnershipWatcher watcher = loadedWatcher(client(relay.endpoint()));
        Ownership rejected = watcher.snapshot().partitionOwner("orders", 1);
        assertThat(watcher.invalidatePartition("orders", 1, rejected)).isTrue();
        await().atMost(CONVERGE).until(() -> watcher.snapshot().partitionOwner("orders", 1) == null);

        relay.cut();
        await().atMost(CONVERGE).until(() -> watcher.staleness().compareTo(Duration.ZERO) > 0);
        kv.delete(EtcdBytes.of(keys.partitionLeaseKey("orders", 0))).get(5, TimeUnit.SECONDS);
        put(kv, keys.partitionLeaseKey("orders", 5), "2");
        put(kv, keys.groupLeaseKey("billing"), "2");
        long compactedTo = etcd.compact();
        relay.restore();

        await().atMost(CONVERGE).untilAsserted(() -> {
            assertThat(watcher.staleness()).isZero();
            assertThat(watcher.snapshot().revision()).isGreaterThanOrEqualTo(compactedTo);
            assertThat(watcher.snapshot().partitions()).isEqualTo(Map.of(
                    new PartitionId("orders", 5), new Ownership(2, read(kv, keys.partitionLeaseKey("orders", 5)).getCreateRevision())));
            assertThat(watcher.snapshot().groupOwner("billing").brokerId()).isEqualTo(2);
        });
        // The route rejected before the outage stays dropped: etcd still names the same ownership.
        assertThat(watcher.snapshot().partitionOwner("orders", 1)).isNull();
        put(kv, keys.partitionLeaseKey("orders", 6), "2");
        await().atMost(CONVERGE).until(() -> watcher.snapshot().partitionOwner("orders", 6) != null);
    }

    @Test
    void silentlyStalledConnectionIsDetectedAndRecovered() throws Exception {
        Client direct = client(etcd.endpoint());
        KV kv = direct.getKVClient();
        TcpRelay relay = TcpRelay.to(etcd);
        resources.add(relay);
        put(kv, keys.partitionLeaseKey("orders", 0), "1");
        OwnershipWatcher watcher = loadedWatcher(client(relay.endpoint()));
        // An idle but healthy watch answers progress requests, so it is not mistaken for a dead one.
        await().during(Duration.ofSeconds(6)).atMost(Duration.ofSeconds(7))
                .until(() -> watcher.staleness().isZero());

        relay.stall();
        put(kv, keys.partitionLeaseKey("orders", 1), "2");
        await().atMost(CONVERGE).until(() -> watcher.staleness().compareTo(Duration.ofSeconds(1)) > 0);
        assertThat(watcher.snapshot().partitionOwner("orders", 1)).isNull();

        relay.cut();
        relay.restore();
        await().atMost(CONVERGE).untilAsserted(() -> {
            assertThat(watcher.snapshot().partitionOwner("orders", 1)).isNotNull();
            assertThat(watcher.staleness()).isZero();
        });
    }

    private OwnershipWatcher loadedWatcher(Client client) throws InterruptedException {
        // Rejected routes held longer than the test runs: it checks they survive the reload.
        OwnershipWatcher watcher = OwnershipWatcher.start(client, keys, Duration.ofMinutes(5));
        resources.add(watcher);
        assertThat(watcher.awaitLoaded(CONVERGE)).isTrue();
        assertThat(watcher.staleness()).isZero();
        return watcher;
    }

    private Client client(String endpoint) {
        Client client = Client.builder().endpoints(endpoint).build();
        resources.add(client);
        return client;
    }

    private static void put(KV kv, String key, String value) throws Exception {
        kv.put(EtcdBytes.of(key), EtcdBytes.of(value)).get(10, TimeUnit.SECONDS);
    }

    private static KeyValue read(KV kv, String key) throws Exception {
        return kv.get(EtcdBytes.of(key)).get(5, TimeUnit.SECONDS).getKvs().get(0);
    }
}
