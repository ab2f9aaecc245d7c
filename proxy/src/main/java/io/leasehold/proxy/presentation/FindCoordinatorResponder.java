package io.leasehold.proxy.presentation;

import io.leasehold.proxy.versions.FirstVersions;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FindCoordinatorRequest.CoordinatorType;

/**
 * Answers FindCoordinator locally: the coordinator of a consumer group is the node the
 * {@link ClusterPresentation} shows for it (the one proxy node, or the node of the group's
 * owner); any proxy node routes group requests to the group's owner itself. Transaction coordinators are refused
 * with the error a broker without transactions gives ({@link TransactionRefusal}), and other key
 * types (share groups) with INVALID_REQUEST, since the ownership contract has no owner for them.
 * Covers the single-key versions (0-3) and the batched versions (4+).
 */
public final class FindCoordinatorResponder {
    private final ClusterPresentation presentation;

    public FindCoordinatorResponder(ClusterPresentation presentation) {
        this.presentation = presentation;
    }

    public FindCoordinatorResponseData answer(FindCoordinatorRequestData request, short version) {
        if (version < FirstVersions.FIND_COORDINATOR_BATCHED) {
            FindCoordinatorResponseData.Coordinator single = coordinator(request.key(), request.keyType());
            return new FindCoordinatorResponseData().setErrorCode(single.errorCode())
                    .setErrorMessage(single.errorMessage()).setNodeId(single.nodeId()).setHost(single.host())
                    .setPort(single.port());
        }
        List<FindCoordinatorResponseData.Coordinator> coordinators = new ArrayList<>();
        for (String key : request.coordinatorKeys()) {
            coordinators.add(coordinator(key, request.keyType()));
        }
        return new FindCoordinatorResponseData().setCoordinators(coordinators);
    }

    private FindCoordinatorResponseData.Coordinator coordinator(String key, byte keyType) {
        if (keyType == CoordinatorType.GROUP.id()) {
            ProxyIdentity node = presentation.groupCoordinator(key);
            return new FindCoordinatorResponseData.Coordinator()
                    .setKey(key).setNodeId(node.nodeId()).setHost(node.host()).setPort(node.port());
        }
        if (keyType == CoordinatorType.TRANSACTION.id()) {
            return refused(key, TransactionRefusal.ERROR, TransactionRefusal.MESSAGE);
        }
        return refused(key, Errors.INVALID_REQUEST,
                "the Leasehold proxy serves consumer group coordinators only (key type 0), not key type " + keyType);
    }

    private static FindCoordinatorResponseData.Coordinator refused(String key, Errors error, String message) {
        return new FindCoordinatorResponseData.Coordinator().setKey(key).setErrorCode(error.code())
                .setErrorMessage(message).setNodeId(-1).setHost("").setPort(-1);
    }
}
