package io.leasehold.proxy.access;

import io.leasehold.proxy.authorization.Authorizer;
import io.leasehold.proxy.exchange.EntryAccess;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * ConsumerGroupDescribe: DESCRIBE on each group (GROUP_AUTHORIZATION_FAILED), then a described
 * group whose members are assigned topics the principal may not describe is refused in the
 * answer (see {@link DescribedGroupAccess}).
 */
final class ConsumerGroupDescribeRule implements AccessRule {

    @Override
    public EntryAccess entries(Authorizer decider, KafkaPrincipal principal) {
        return AccessChecks.entries(decider, principal, ResourceType.GROUP, AclOperation.DESCRIBE,
                Errors.GROUP_AUTHORIZATION_FAILED);
    }

    @Override
    public AnswerFilter answers(Authorizer decider, ApiMessage request, short version, KafkaPrincipal principal) {
        DescribedGroupAccess described = new DescribedGroupAccess(decider);
        return (answer, topicNames) -> described.visible((ConsumerGroupDescribeResponseData) answer, principal);
    }
}
