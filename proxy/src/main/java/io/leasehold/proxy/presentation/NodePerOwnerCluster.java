package io.leasehold.proxy.presentation;

import io.leasehold.proxy.owners.OwnerLookup;
import io.leasehold.proxy.owners.Target;
import io.leasehold.routing.snapshot.BrokerAddress;
import io.leasehold.routing.snapshot.RoutingSnapshot;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The node-per-owner view of one routing snapshot: a node for every live broker whose id has
 * one, and as leader (coordinator) of each partition (group) the node of the broker the router
 * sends it to, that is its owner, or for something nobody owns the broker every proxy picks
 * alike. A broker without a node of its own (id outside the configured range) is shown on the
 * node the same fallback picks among the nodes, so its partitions stay visible. With no live
 * broker that has a node (etcd knows none yet), the first node of the range stands in: every
 * node port serves every request.
 */
final class NodePerOwnerCluster implements PresentedCluster {
    private final OwnerLookup router;
    private final RoutingSnapshot snapshot;
    private final List<ProxyIdentity> nodes;
    private final Map<Integer, ProxyIdentity> byId;

    private NodePerOwnerCluster(OwnerLookup router, RoutingSnapshot snapshot, List<ProxyIdentity> nodes) {
        this.router = router;
        this.snapshot = snapshot;
        this.nodes = List.copyOf(nodes);
        Map<Integer, ProxyIdentity> index = new HashMap<>();
        nodes.forEach(node -> index.put(node.nodeId(), node));
        this.byId = Map.copyOf(index);
    }

    static NodePerOwnerCluster of(OwnerLookup router, RoutingSnapshot snapshot, NodeAddresses addresses,
                                  BrokersWithoutNode outside) {
        List<ProxyIdentity> nodes = new ArrayList<>();
        List<Integer> uncovered = new ArrayList<>();
        for (BrokerAddress broker : router.liveBrokers(snapshot)) {
            if (addresses.covers(broker.id())) {
                nodes.add(addresses.node(broker.id()));
            } else if (broker.id() >= 0) {
                uncovered.add(broker.id());
            }
        }
        outside.seen(uncovered);
        if (nodes.isEmpty()) {
            nodes.add(addresses.node(addresses.firstNodeId()));
        }
        return new NodePerOwnerCluster(router, snapshot, nodes);
    }

    @Override
    public List<ProxyIdentity> nodes() {
        return nodes;
    }

    /** The lowest node id: every proxy shows the same controller. */
    @Override
    public int controllerId() {
        return nodes.get(0).nodeId();
    }

    @Override
    public int leader(String topic, int partition) {
        return nodeOf(router.partition(snapshot, topic, partition, 0), OwnerLookup.partitionHash(topic, partition))
                .nodeId();
    }

    @Override
    public ProxyIdentity coordinator(String group) {
        return nodeOf(router.group(snapshot, group, 0), OwnerLookup.groupHash(group));
    }

    private ProxyIdentity nodeOf(Target routed, int hash) {
        ProxyIdentity node = routed == null ? null : byId.get(routed.broker().id());
        return node != null ? node : OwnerLookup.fallback(nodes, hash, 0);
    }
}
