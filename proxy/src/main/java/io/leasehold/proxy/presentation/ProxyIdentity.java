package io.leasehold.proxy.presentation;

/**
 * A broker node as clients see it: an id and an address of the proxy tier. In the single-node
 * presentation it is the one node every proxy of a deployment advertises (node id
 * {@value #DEFAULT_NODE_ID}, the advertised host and port); in the node-per-owner presentation
 * there is one per backend broker, with the broker's id and that node's proxy address.
 */
public record ProxyIdentity(int nodeId, String host, int port) {
    /** Node id shown for the proxy tier in the single-node presentation. */
    public static final int DEFAULT_NODE_ID = 0;

    /** The single node of the single-node presentation. */
    public static ProxyIdentity advertised(String host, int port) {
        return new ProxyIdentity(DEFAULT_NODE_ID, host, port);
    }
}
