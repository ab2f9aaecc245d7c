package io.leasehold.proxy.routing;

/**
 * The single broker identity every client sees: the proxy tier's advertised address. All
 * proxies of a deployment advertise the same node id, host and port.
 */
public record ProxyIdentity(int nodeId, String host, int port) {
    /** Node id shown for the proxy tier in Metadata, FindCoordinator and DescribeCluster. */
    public static final int DEFAULT_NODE_ID = 0;

    public static ProxyIdentity advertised(String host, int port) {
        return new ProxyIdentity(DEFAULT_NODE_ID, host, port);
    }
}
