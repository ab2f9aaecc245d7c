package io.leasehold.proxy.presentation;

import java.util.List;

/** One consistent view of the nodes clients are shown, and which node leads or coordinates what. */
interface PresentedCluster {
    /** The nodes, sorted by id; never empty. */
    List<ProxyIdentity> nodes();

    /** The node id shown as controller; one of {@link #nodes()}. */
    int controllerId();

    /** The node id shown as leader of the partition; one of {@link #nodes()}. */
    int leader(String topic, int partition);

    /** The node shown as coordinator of the consumer group; one of {@link #nodes()}. */
    ProxyIdentity coordinator(String group);
}
