package io.leasehold.proxy.access;

import io.leasehold.proxy.authorization.Authorizer;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * ListGroups: the answer lists only the groups the principal may DESCRIBE, all of them with
 * DESCRIBE on the cluster (see {@link ListingAccess}). The request itself is not needed.
 */
final class ListGroupsRule implements AccessRule {

    @Override
    public AnswerFilter answers(Authorizer decider, ApiMessage request, short version, KafkaPrincipal principal) {
        ListingAccess access = new ListingAccess(decider);
        return (answer, topicNames) -> access.groups((ListGroupsResponseData) answer, principal);
    }
}
