package io.leasehold.proxy.access;

import io.leasehold.proxy.authorization.Authorizer;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * OffsetDelete: DELETE on the group, or the whole request is refused (GROUP_AUTHORIZATION_FAILED);
 * then READ on each topic, decided resource by resource ({@code AdminAccess}).
 */
final class OffsetDeleteRule implements AccessRule {

    @Override
    public ApiException refusal(Authorizer decider, ApiMessage request, KafkaPrincipal principal) {
        return AccessChecks.group(decider, principal, AclOperation.DELETE,
                ((OffsetDeleteRequestData) request).groupId());
    }

    @Override
    public boolean decidesPerResource() {
        return true;
    }
}
