package io.leasehold.proxy.presentation;

import static io.leasehold.proxy.config.ProxyConfig.Presentation.NODE_ID_PLACEHOLDER;

/**
 * Where clients reach the node of each backend broker in the node-per-owner presentation.
 * Broker ids {@code firstNodeId .. firstNodeId + nodeCount - 1} have a node; the node of broker
 * {@code id} is at {@code hostPattern} with {@code {id}} replaced (or {@code advertisedHost}
 * when there is no pattern), on port {@code portBase + id - firstNodeId} (or
 * {@code advertisedPort} when there is no port range). Every node address is distinct as long
 * as there is a port range or a pattern, which the configuration ensures.
 *
 * @param portBase 0 when nodes share the advertised port and differ by host name only
 */
public record NodeAddresses(String advertisedHost, int advertisedPort, String hostPattern, int portBase,
                            int firstNodeId, int nodeCount) {
    public NodeAddresses {
        if (hostPattern == null && portBase == 0) {
            throw new IllegalArgumentException("node addresses need a port range or a host pattern with "
                    + NODE_ID_PLACEHOLDER + ", or every node would have the same address");
        }
        if (hostPattern != null && !hostPattern.contains(NODE_ID_PLACEHOLDER)) {
            throw new IllegalArgumentException("host pattern " + hostPattern + " lacks " + NODE_ID_PLACEHOLDER);
        }
        if (nodeCount < 1 || firstNodeId < 0) {
            throw new IllegalArgumentException("node range " + firstNodeId + " + " + nodeCount + " is empty or negative");
        }
    }

    /** Whether broker {@code brokerId} has a node of its own. */
    public boolean covers(int brokerId) {
        return brokerId >= firstNodeId && brokerId - firstNodeId < nodeCount;
    }

    /** The last broker id with a node. */
    public int lastNodeId() {
        return firstNodeId + nodeCount - 1;
    }

    /** The port that serves broker {@code brokerId}'s node (the advertised port without a range). */
    public int port(int brokerId) {
        return portBase == 0 ? advertisedPort : portBase + brokerId - firstNodeId;
    }

    /** The node of broker {@code brokerId}, which must be {@linkplain #covers covered}. */
    ProxyIdentity node(int brokerId) {
        String host = hostPattern == null ? advertisedHost : hostPattern.replace(NODE_ID_PLACEHOLDER,
                Integer.toString(brokerId));
        return new ProxyIdentity(brokerId, host, port(brokerId));
    }
}
