package io.leasehold.proxy.presentation;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Warns once per broker id when a live broker has no node of its own in the node-per-owner
 * presentation (its id is outside the configured range), so an operator learns to widen the
 * range; the gauge {@code leasehold_presentation_brokers_without_node} counts them meanwhile.
 */
final class BrokersWithoutNode {
    private static final Logger LOG = LoggerFactory.getLogger(BrokersWithoutNode.class);

    private final NodeAddresses addresses;
    /** Broker ids warned about; bounded by the number of broker ids a cluster ever uses. */
    private final Set<Integer> warned = ConcurrentHashMap.newKeySet();

    BrokersWithoutNode(NodeAddresses addresses) {
        this.addresses = addresses;
    }

    void seen(List<Integer> brokerIds) {
        for (int id : brokerIds) {
            if (warned.add(id)) {
                LOG.warn("Broker {} has no node of its own: node ids {}..{} have node addresses "
                                + "(presentation.firstNodeId, presentation.nodeCount). Its partitions and groups are "
                                + "shown on other nodes and still routed to it; widen the range to give it a node",
                        id, addresses.firstNodeId(), addresses.lastNodeId());
            }
        }
    }
}
