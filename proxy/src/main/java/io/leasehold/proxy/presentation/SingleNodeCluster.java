package io.leasehold.proxy.presentation;

import java.util.List;

/** The single-node view: one node that is controller, leader and coordinator of everything. */
record SingleNodeCluster(ProxyIdentity identity) implements PresentedCluster {
    @Override
    public List<ProxyIdentity> nodes() {
        return List.of(identity);
    }

    @Override
    public int controllerId() {
        return identity.nodeId();
    }

    @Override
    public int leader(String topic, int partition) {
        return identity.nodeId();
    }

    @Override
    public ProxyIdentity coordinator(String group) {
        return identity;
    }
}
