package io.leasehold.proxy.presentation;

import io.leasehold.proxy.owners.OwnerLookup;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.MetadataResponseData;

/**
 * How the proxy tier shows the cluster to clients, in every answer that names brokers
 * (Metadata, DescribeCluster, FindCoordinator). Clients never see a backend address: either
 * one node for the whole tier ({@link #singleNode}), or one proxy node per backend broker
 * ({@link #nodePerOwner}). Either way requests are routed per partition and group by the
 * routing table, whichever node's address a client sends them to.
 */
public final class ClusterPresentation {
    private final Supplier<PresentedCluster> views;

    private ClusterPresentation(Supplier<PresentedCluster> views) {
        this.views = views;
    }

    /** One node, the advertised address: controller, leader of every partition, coordinator of every group. */
    public static ClusterPresentation singleNode(ProxyIdentity identity) {
        PresentedCluster only = new SingleNodeCluster(identity);
        return new ClusterPresentation(() -> only);
    }

    /**
     * One node per live backend broker at {@code addresses}; every partition's leader and every
     * group's coordinator is the node of the broker the router sends it to, computed from the
     * routing snapshot current at each answer.
     */
    public static ClusterPresentation nodePerOwner(OwnerLookup router, NodeAddresses addresses) {
        BrokersWithoutNode outside = new BrokersWithoutNode(addresses);
        return new ClusterPresentation(() -> NodePerOwnerCluster.of(router, router.snapshot(), addresses, outside));
    }

    /**
     * A copy of a backend's Metadata answer with brokers, controller, leaders, replicas and ISR
     * replaced; {@code backendAnswer} itself is left as it is (it may be cached and shared).
     * Replicas and ISR name the leader only: a partition is served by its owner alone, and
     * listing other nodes would make tools count them as followers.
     */
    MetadataResponseData present(MetadataResponseData backendAnswer) {
        PresentedCluster view = views.get();
        MetadataResponseData response = backendAnswer.duplicate();
        MetadataResponseData.MetadataResponseBrokerCollection brokers =
                new MetadataResponseData.MetadataResponseBrokerCollection();
        for (ProxyIdentity node : view.nodes()) {
            brokers.add(new MetadataResponseData.MetadataResponseBroker()
                    .setNodeId(node.nodeId()).setHost(node.host()).setPort(node.port()));
        }
        response.setBrokers(brokers);
        response.setControllerId(view.controllerId());
        for (MetadataResponseData.MetadataResponseTopic topic : response.topics()) {
            for (MetadataResponseData.MetadataResponsePartition partition : topic.partitions()) {
                int leader = view.leader(topic.name(), partition.partitionIndex());
                partition.setLeaderId(leader)
                        .setReplicaNodes(new ArrayList<>(List.of(leader)))
                        .setIsrNodes(new ArrayList<>(List.of(leader)))
                        .setOfflineReplicas(new ArrayList<>());
            }
        }
        return response;
    }

    /** Replaces a backend's DescribeCluster brokers and controller with the ones Metadata shows. */
    public void rewrite(DescribeClusterResponseData response) {
        PresentedCluster view = views.get();
        DescribeClusterResponseData.DescribeClusterBrokerCollection brokers =
                new DescribeClusterResponseData.DescribeClusterBrokerCollection();
        for (ProxyIdentity node : view.nodes()) {
            brokers.add(new DescribeClusterResponseData.DescribeClusterBroker()
                    .setBrokerId(node.nodeId()).setHost(node.host()).setPort(node.port()));
        }
        response.setBrokers(brokers);
        response.setControllerId(view.controllerId());
    }

    /** The nodes clients are shown now, sorted by id. */
    public List<ProxyIdentity> nodes() {
        return views.get().nodes();
    }

    /** The node shown as coordinator of consumer group {@code group}. */
    ProxyIdentity groupCoordinator(String group) {
        return views.get().coordinator(group);
    }
}
