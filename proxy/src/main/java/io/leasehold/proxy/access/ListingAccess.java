package io.leasehold.proxy.access;

import io.leasehold.proxy.authorization.Authorizer;
import io.leasehold.proxy.versions.FirstVersions;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FindCoordinatorRequest.CoordinatorType;
import org.apache.kafka.common.resource.Resource;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * Group look-ups as the principal may see them: FindCoordinator for a group it may not DESCRIBE
 * is answered GROUP_AUTHORIZATION_FAILED, and ListGroups lists only the groups it may DESCRIBE
 * (all of them with DESCRIBE on the cluster).
 */
public final class ListingAccess {
    private final Authorizer authorizer;

    public ListingAccess(Authorizer authorizer) {
        this.authorizer = authorizer;
    }

    /** Marks the coordinators of groups {@code principal} may not describe as refused (in place). */
    public FindCoordinatorResponseData coordinators(FindCoordinatorRequestData request, short version,
                                             FindCoordinatorResponseData answer, KafkaPrincipal principal) {
        if (!authorizer.enabled() || request.keyType() != CoordinatorType.GROUP.id()) {
            return answer;
        }
        if (version < FirstVersions.FIND_COORDINATOR_BATCHED) {
            String singleKey = request.key();
            if (answer.errorCode() == Errors.NONE.code() && !describable(singleKey, principal)) {
                answer.setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code())
                        .setErrorMessage("Not authorized to DESCRIBE group " + singleKey)
                        .setNodeId(-1).setHost("").setPort(-1);
            }
            return answer;
        }
        for (FindCoordinatorResponseData.Coordinator coordinator : answer.coordinators()) {
            if (coordinator.errorCode() == Errors.NONE.code() && !describable(coordinator.key(), principal)) {
                coordinator.setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code())
                        .setErrorMessage("Not authorized to DESCRIBE group " + coordinator.key())
                        .setNodeId(-1).setHost("").setPort(-1);
            }
        }
        return answer;
    }

    private boolean describable(String group, KafkaPrincipal principal) {
        return authorizer.allows(principal, AclOperation.DESCRIBE, ResourceType.GROUP, group);
    }

    /** Leaves out of {@code answer} (in place) the groups {@code principal} may not describe. */
    public ListGroupsResponseData groups(ListGroupsResponseData answer, KafkaPrincipal principal) {
        if (!authorizer.enabled() || authorizer.allowsQuietly(principal, AclOperation.DESCRIBE, ResourceType.CLUSTER,
                Resource.CLUSTER_NAME)) {
            return answer;
        }
        answer.groups().removeIf(group -> !authorizer.allowsQuietly(principal, AclOperation.DESCRIBE,
                ResourceType.GROUP, group.groupId()));
        return answer;
    }
}
