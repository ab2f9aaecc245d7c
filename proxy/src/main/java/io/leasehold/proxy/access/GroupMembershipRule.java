package io.leasehold.proxy.access;

import io.leasehold.proxy.authorization.Authorizer;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * The classic group membership APIs (JoinGroup, SyncGroup, Heartbeat, LeaveGroup): READ on the
 * group, or the whole request is refused with GROUP_AUTHORIZATION_FAILED.
 */
final class GroupMembershipRule implements AccessRule {

    @Override
    public ApiException refusal(Authorizer decider, ApiMessage request, KafkaPrincipal principal) {
        return AccessChecks.group(decider, principal, AclOperation.READ, groupOf(request));
    }

    private static String groupOf(ApiMessage request) {
        if (request instanceof JoinGroupRequestData join) {
            return join.groupId();
        }
        if (request instanceof SyncGroupRequestData sync) {
            return sync.groupId();
        }
        if (request instanceof HeartbeatRequestData heartbeat) {
            return heartbeat.groupId();
        }
        if (request instanceof LeaveGroupRequestData leave) {
            return leave.groupId();
        }
        throw new IllegalArgumentException("not a group membership request: " + request.getClass().getSimpleName());
    }
}
