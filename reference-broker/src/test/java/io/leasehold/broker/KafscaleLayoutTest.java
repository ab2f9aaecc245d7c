package io.leasehold.broker;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.leasehold.routing.keys.KeySchema;
import io.leasehold.routing.keys.MetadataSnapshotBrokers;
import io.leasehold.routing.snapshot.BrokerAddress;
import io.leasehold.routing.testing.EtcdExtension;
import io.leasehold.routing.testing.EtcdServer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code --layout kafscale}: the reference broker presents itself as a KafScale v1.6 broker does
 * (KAFSCALE-NOTES.md): no {@code P/brokers/{id}}, listed in {@code P/metadata/snapshot}, lease
 * values as NodeID strings on one session lease, KafScale's ApiVersions table with {@code -1..-1}
 * rows, and REQUEST_TIMED_OUT on produce while etcd is unreachable. Stops etcd, so it has its own.
 */
@ExtendWith(EtcdExtension.class)
class KafscaleLayoutTest {

    @Test
    void brokersListThemselvesInTheMetadataSnapshotInsteadOfRegistering(EtcdServer etcd) throws Exception {
        try (BrokerCluster cluster = new BrokerCluster(etcd);
             Client client = Client.builder().endpoints(etcd.endpoint()).build()) {
            ReferenceBroker first = cluster.start(0, BrokerOptions.OwnershipMode.LEASE, BrokerOptions.Layout.KAFSCALE);
            ReferenceBroker second = cluster.start(1, BrokerOptions.OwnershipMode.LEASE, BrokerOptions.Layout.KAFSCALE);
            KeySchema keys = new KeySchema(cluster.prefix());

            assertThat(get(client, keys.brokersPrefix(), true)).isEmpty();
            String snapshot = get(client, keys.metadataSnapshotKey(), false).get(0).getValue().toString(StandardCharsets.UTF_8);
            assertThat(MetadataSnapshotBrokers.parse(snapshot)).containsExactly(first.address(), second.address());
            assertThat(snapshot).startsWith("{\"Brokers\":[{\"NodeID\":0,").contains("\"ControllerID\":0,\"Topics\":[]");

            try (WireClient wire = new WireClient(second.port())) {
                MetadataResponseData metadata = wire.send(ApiKeys.METADATA, 12, new MetadataRequestData().setTopics(null),
                        MetadataResponseData.class);
                assertThat(metadata.brokers()).extracting(MetadataResponseData.MetadataResponseBroker::nodeId)
                        .containsExactlyInAnyOrder(0, 1);
            }
            cluster.createTopic("orders", 2);
            try (WireClient wire = new WireClient(first.port())) {
                assertThat(Produces.produce(wire, "orders", 0, "a").errorCode()).isEqualTo(Errors.NONE.code());
            }
            try (WireClient wire = new WireClient(second.port())) {
                assertThat(Produces.produce(wire, "orders", 1, "b").errorCode()).isEqualTo(Errors.NONE.code());
                assertThat(Produces.produce(wire, "orders", 0, "c").errorCode())
                        .isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER.code());
            }
            KeyValue lease0 = get(client, keys.partitionLeaseKey("orders", 0), false).get(0);
            KeyValue lease1 = get(client, keys.partitionLeaseKey("orders", 1), false).get(0);
            assertThat(lease0.getValue().toString(StandardCharsets.UTF_8)).isEqualTo("0");
            assertThat(lease1.getValue().toString(StandardCharsets.UTF_8)).isEqualTo("1");
            List<KeyValue> partitionKeysOfBroker0 = get(client, keys.partitionLeasesPrefix(), true).stream()
                    .filter(kv -> kv.getValue().toString(StandardCharsets.UTF_8).equals("0")).toList();
            assertThat(partitionKeysOfBroker0).extracting(KeyValue::getLease).containsOnly(lease0.getLease());
            assertThat(client.getLeaseClient().timeToLive(lease0.getLease(), io.etcd.jetcd.options.LeaseOption.DEFAULT)
                    .get(5, TimeUnit.SECONDS).getGrantedTTL()).as("the harness's TTL, 10 s by default").isEqualTo(5);
        }
    }

    @Test
    void advertisesKafscalesApiTableWithUnsupportedApisAsMinusOne(EtcdServer etcd) throws Exception {
        try (BrokerCluster cluster = new BrokerCluster(etcd)) {
            ReferenceBroker broker = cluster.start(0, BrokerOptions.OwnershipMode.LEASE, BrokerOptions.Layout.KAFSCALE);
            try (WireClient wire = new WireClient(broker.port())) {
                ApiVersionsResponseData versions = wire.send(ApiKeys.API_VERSIONS, 3, new ApiVersionsRequestData()
                        .setClientSoftwareName("t").setClientSoftwareVersion("1"), ApiVersionsResponseData.class);

                for (int unsupported : new int[] {4, 5, 6, 7, 21, 22, 24, 25, 26}) {
                    assertThat(versions.apiKeys().find((short) unsupported)).as("api key %d", unsupported)
                            .extracting(ApiVersion::minVersion, ApiVersion::maxVersion).containsExactly((short) -1, (short) -1);
                }
                assertThat(range(versions, ApiKeys.FETCH)).containsExactly((short) 11, (short) 13);
                assertThat(range(versions, ApiKeys.FIND_COORDINATOR)).containsExactly((short) 3, (short) 3);
                assertThat(range(versions, ApiKeys.JOIN_GROUP)).containsExactly((short) 4, (short) 4);
                assertThat(range(versions, ApiKeys.OFFSET_COMMIT)).containsExactly((short) 3, (short) 3);
                assertThat(range(versions, ApiKeys.OFFSET_FETCH)).containsExactly((short) 5, (short) 5);
                assertThat(versions.apiKeys().find(ApiKeys.DESCRIBE_CLUSTER.id)).isNull();
            }
        }
    }

    @Test
    void produceWhileEtcdIsUnreachableIsAnsweredRequestTimedOutAndNothingIsWritten(EtcdServer etcd) throws Exception {
        try (BrokerCluster cluster = new BrokerCluster(etcd)) {
            ReferenceBroker broker = cluster.start(0, BrokerOptions.OwnershipMode.LEASE, BrokerOptions.Layout.KAFSCALE);
            cluster.createTopic("orders", 1);
            try (WireClient wire = new WireClient(broker.port())) {
                short whileDown;
                etcd.stop();
                try {
                    whileDown = Produces.produce(wire, "orders", 0, "lost?").errorCode();
                } finally {
                    etcd.restart();
                }
                // As a client would: retry the retriable answer until etcd is reachable again.
                var afterwards = Produces.produce(wire, "orders", 0, "kept");
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (afterwards.errorCode() == Errors.REQUEST_TIMED_OUT.code() && System.nanoTime() < until) {
                    afterwards = Produces.produce(wire, "orders", 0, "kept");
                }

                assertThat(Errors.forCode(whileDown)).isEqualTo(Errors.REQUEST_TIMED_OUT);
                assertThat(Errors.forCode(whileDown).exception())
                        .isInstanceOf(org.apache.kafka.common.errors.RetriableException.class);
                assertThat(afterwards.errorCode()).isEqualTo(Errors.NONE.code());
                assertThat(afterwards.baseOffset()).as("the refused record was not written").isZero();
            }
        }
    }

    private static List<Short> range(ApiVersionsResponseData versions, ApiKeys api) {
        ApiVersion version = versions.apiKeys().find(api.id);
        return List.of(version.minVersion(), version.maxVersion());
    }

    private static List<KeyValue> get(Client client, String key, boolean prefix) throws Exception {
        GetOption option = prefix ? GetOption.builder().isPrefix(true).build() : GetOption.DEFAULT;
        return client.getKVClient().get(ByteSequence.from(key, StandardCharsets.UTF_8), option).get(5, TimeUnit.SECONDS)
                .getKvs();
    }
}
