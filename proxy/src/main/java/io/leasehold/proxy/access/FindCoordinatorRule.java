package io.leasehold.proxy.access;

import io.leasehold.proxy.authorization.Authorizer;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * FindCoordinator: the coordinator of a group the principal may not DESCRIBE is answered
 * GROUP_AUTHORIZATION_FAILED (see {@link ListingAccess}).
 */
final class FindCoordinatorRule implements AccessRule {

    @Override
    public AnswerFilter answers(Authorizer decider, ApiMessage request, short version, KafkaPrincipal principal) {
        ListingAccess access = new ListingAccess(decider);
        FindCoordinatorRequestData find = (FindCoordinatorRequestData) request;
        return (answer, topicNames) -> access.coordinators(find, version, (FindCoordinatorResponseData) answer,
                principal);
    }
}
