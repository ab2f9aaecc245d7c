package io.leasehold.broker.cluster;

import io.leasehold.broker.protocol.ApiHandler;
import io.leasehold.broker.protocol.KafkaRequest;
import io.leasehold.routing.snapshot.BrokerAddress;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/** DescribeCluster: the live brokers; only the broker endpoint type is served. */
public final class DescribeClusterHandler implements ApiHandler {

    /** DescribeCluster endpoint type 1: brokers (2 would be controllers). */
    private static final byte BROKER_ENDPOINTS = 1;

    private final ClusterView cluster;
    private final String clusterId;

    public DescribeClusterHandler(ClusterView cluster, String clusterId) {
        this.cluster = cluster;
        this.clusterId = clusterId;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
        DescribeClusterRequestData data = request.data(DescribeClusterRequestData.class);
        if (request.version() >= 1 && data.endpointType() != BROKER_ENDPOINTS) {
            return CompletableFuture.completedFuture(new DescribeClusterResponseData()
                    .setErrorCode(Errors.UNSUPPORTED_ENDPOINT_TYPE.code())
                    .setErrorMessage("only broker endpoints (type 1) are served, got type " + data.endpointType()));
        }
        return cluster.read().thenApply(snapshot -> {
            DescribeClusterResponseData response = new DescribeClusterResponseData()
                    .setClusterId(clusterId)
                    .setControllerId(snapshot.controllerId())
                    .setEndpointType(BROKER_ENDPOINTS)
                    .setClusterAuthorizedOperations(Integer.MIN_VALUE);
            for (BrokerAddress broker : snapshot.brokers()) {
                response.brokers().add(new DescribeClusterResponseData.DescribeClusterBroker()
                        .setBrokerId(broker.id()).setHost(broker.host()).setPort(broker.port()).setRack(broker.rack()));
            }
            return response;
        });
    }
}
