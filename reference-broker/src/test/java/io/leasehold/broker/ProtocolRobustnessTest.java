package io.leasehold.broker;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.routing.testing.EtcdExtension;
import io.leasehold.routing.testing.EtcdServer;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/** Requests the broker cannot serve close only their own connection; ApiVersions always gets an answer. */
@ExtendWith(EtcdExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ProtocolRobustnessTest {

    private BrokerCluster cluster;
    private ReferenceBroker broker;

    @BeforeAll
    void startBroker(EtcdServer etcd) throws Exception {
        cluster = new BrokerCluster(etcd);
        broker = cluster.start(1);
    }

    @AfterAll
    void stopBroker() {
        cluster.close();
    }

    @Test
    void apiVersionsOfAnUnservedVersionGetsTheTableInVersion0() throws Exception {
        try (WireClient client = new WireClient(broker.port())) {
            ApiVersionsResponseData response = client.send(ApiKeys.API_VERSIONS, 4,
                    new ApiVersionsRequestData().setClientSoftwareName("test").setClientSoftwareVersion("1"), 0,
                    ApiVersionsResponseData.class);
            assertThat(response.errorCode()).isEqualTo(Errors.UNSUPPORTED_VERSION.code());
            ApiVersionsResponseData.ApiVersion produce = response.apiKeys().find(ApiKeys.PRODUCE.id);
            assertThat(produce.minVersion()).isEqualTo((short) 3);
            assertThat(produce.maxVersion()).isEqualTo((short) 11);
            assertThat(response.apiKeys().find(ApiKeys.END_TXN.id)).as("transactions are not advertised").isNull();

            ApiVersionsResponseData served = client.send(ApiKeys.API_VERSIONS, 3,
                    new ApiVersionsRequestData().setClientSoftwareName("test").setClientSoftwareVersion("1"),
                    ApiVersionsResponseData.class);
            assertThat(served.errorCode()).isEqualTo(Errors.NONE.code());
        }
    }

    @Test
    void unservedVersionsGarbageAndOversizedFramesCloseOnlyTheirConnection() throws Exception {
        try (WireClient oldProduce = new WireClient(broker.port())) {
            oldProduce.sendOneWay(ApiKeys.PRODUCE, 2, new ProduceRequestData().setAcks((short) 1).setTimeoutMs(1000));
            assertThat(oldProduce.closedByBroker()).isTrue();
        }
        try (WireClient garbage = new WireClient(broker.port())) {
            garbage.sendRaw(ByteBuffer.allocate(8).putInt(4).putInt(0xFFFFFFFF).array());
            assertThat(garbage.closedByBroker()).isTrue();
        }
        try (WireClient oversized = new WireClient(broker.port())) {
            oversized.sendRaw(ByteBuffer.allocate(4).putInt(Integer.MAX_VALUE).array());
            assertThat(oversized.closedByBroker()).isTrue();
        }
        try (WireClient healthy = new WireClient(broker.port())) {
            MetadataResponseData metadata = healthy.send(ApiKeys.METADATA, 12,
                    new MetadataRequestData().setTopics(List.of()), MetadataResponseData.class);
            assertThat(metadata.brokers()).hasSize(1);
        }
    }
}
