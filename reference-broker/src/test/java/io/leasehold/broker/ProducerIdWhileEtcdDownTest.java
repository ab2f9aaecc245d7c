package io.leasehold.broker;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.routing.testing.EtcdExtension;
import io.leasehold.routing.testing.EtcdServer;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Stops etcd mid-test, so it has an etcd server of its own. */
@ExtendWith(EtcdExtension.class)
class ProducerIdWhileEtcdDownTest {

    @Test
    void producerIdRequestWhileEtcdIsDownGetsARetriableErrorAndSucceedsOnceItIsBack(EtcdServer etcd) throws Exception {
        try (BrokerCluster cluster = new BrokerCluster(etcd)) {
            ReferenceBroker broker = cluster.start(1);
            try (WireClient client = new WireClient(broker.port())) {
                etcd.stop();
                InitProducerIdResponseData whileDown = client.send(ApiKeys.INIT_PRODUCER_ID, 4, freshProducer(),
                        InitProducerIdResponseData.class);
                etcd.restart();
                InitProducerIdResponseData afterwards = client.send(ApiKeys.INIT_PRODUCER_ID, 4, freshProducer(),
                        InitProducerIdResponseData.class);

                assertThat(Errors.forCode(whileDown.errorCode())).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);
                assertThat(Errors.forCode(whileDown.errorCode()).exception()).isInstanceOf(
                        org.apache.kafka.common.errors.RetriableException.class);
                assertThat(Errors.forCode(afterwards.errorCode())).isEqualTo(Errors.NONE);
                assertThat(afterwards.producerId()).isNotNegative();
            }
        }
    }

    private static InitProducerIdRequestData freshProducer() {
        return new InitProducerIdRequestData().setTransactionalId(null).setTransactionTimeoutMs(60_000)
                .setProducerId(-1).setProducerEpoch((short) -1);
    }
}
