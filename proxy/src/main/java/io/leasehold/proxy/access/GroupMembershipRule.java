package io.leasehold.proxy.access;

import io.leasehold.proxy.authorization.Authorizer;
import io.leasehold.proxy.protocol.SingleGroupRequests;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * The classic group membership APIs (JoinGroup, SyncGroup, Heartbeat, LeaveGroup): READ on the
 * group, or the whole request is refused with GROUP_AUTHORIZATION_FAILED.
 */
final class GroupMembershipRule implements AccessRule {

    @Override
    public ApiException refusal(Authorizer decider, ApiMessage request, KafkaPrincipal principal) {
        return AccessChecks.group(decider, principal, AclOperation.READ, SingleGroupRequests.groupOf(request));
    }
}
