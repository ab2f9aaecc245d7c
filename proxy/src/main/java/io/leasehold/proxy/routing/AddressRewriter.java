package io.leasehold.proxy.routing;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.MetadataResponseData;

/**
 * Makes responses that name brokers name only the proxy tier: one broker, the controller, and
 * leader and only replica of every partition. Clients therefore never connect to a backend.
 */
final class AddressRewriter {
    private final ProxyIdentity identity;

    AddressRewriter(ProxyIdentity identity) {
        this.identity = identity;
    }

    void rewrite(MetadataResponseData response) {
        MetadataResponseData.MetadataResponseBrokerCollection brokers =
                new MetadataResponseData.MetadataResponseBrokerCollection();
        brokers.add(new MetadataResponseData.MetadataResponseBroker()
                .setNodeId(identity.nodeId()).setHost(identity.host()).setPort(identity.port()));
        response.setBrokers(brokers);
        response.setControllerId(identity.nodeId());
        List<Integer> self = List.of(identity.nodeId());
        for (MetadataResponseData.MetadataResponseTopic topic : response.topics()) {
            for (MetadataResponseData.MetadataResponsePartition partition : topic.partitions()) {
                partition.setLeaderId(identity.nodeId())
                        .setReplicaNodes(new ArrayList<>(self))
                        .setIsrNodes(new ArrayList<>(self))
                        .setOfflineReplicas(new ArrayList<>());
            }
        }
    }

    void rewrite(DescribeClusterResponseData response) {
        DescribeClusterResponseData.DescribeClusterBrokerCollection brokers =
                new DescribeClusterResponseData.DescribeClusterBrokerCollection();
        brokers.add(new DescribeClusterResponseData.DescribeClusterBroker()
                .setBrokerId(identity.nodeId()).setHost(identity.host()).setPort(identity.port()));
        response.setBrokers(brokers);
        response.setControllerId(identity.nodeId());
    }
}
