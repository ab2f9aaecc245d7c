package io.leasehold.proxy.routing;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;

/**
 * Answers FindCoordinator locally: the coordinator of every group (and every other key type)
 * is the proxy tier, which routes group requests to the group's owner itself. Covers the
 * single-key versions (0-3) and the batched versions (4+).
 */
final class FindCoordinatorResponder {
    private static final short FIRST_BATCHED_VERSION = 4;

    private final ProxyIdentity identity;

    FindCoordinatorResponder(ProxyIdentity identity) {
        this.identity = identity;
    }

    FindCoordinatorResponseData answer(FindCoordinatorRequestData request, short version) {
        if (version < FIRST_BATCHED_VERSION) {
            return new FindCoordinatorResponseData()
                    .setNodeId(identity.nodeId()).setHost(identity.host()).setPort(identity.port());
        }
        List<FindCoordinatorResponseData.Coordinator> coordinators = new ArrayList<>();
        for (String key : request.coordinatorKeys()) {
            coordinators.add(new FindCoordinatorResponseData.Coordinator()
                    .setKey(key).setNodeId(identity.nodeId()).setHost(identity.host()).setPort(identity.port()));
        }
        return new FindCoordinatorResponseData().setCoordinators(coordinators);
    }
}
