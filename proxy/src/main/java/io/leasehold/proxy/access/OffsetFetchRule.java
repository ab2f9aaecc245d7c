package io.leasehold.proxy.access;

import io.leasehold.proxy.authorization.Authorizer;
import io.leasehold.proxy.exchange.EntryAccess;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * OffsetFetch: DESCRIBE on the group, the whole request refused for it before v8 (one group) and
 * each group refused on its own from v8 (GROUP_AUTHORIZATION_FAILED); then the answer shows only
 * the committed offsets of topics the principal may DESCRIBE (see {@link CommittedOffsetAccess}).
 */
final class OffsetFetchRule implements AccessRule {

    @Override
    public ApiException refusal(Authorizer decider, ApiMessage request, KafkaPrincipal principal) {
        return AccessChecks.group(decider, principal, AclOperation.DESCRIBE,
                ((OffsetFetchRequestData) request).groupId());
    }

    @Override
    public EntryAccess entries(Authorizer decider, KafkaPrincipal principal) {
        return AccessChecks.entries(decider, principal, ResourceType.GROUP, AclOperation.DESCRIBE,
                Errors.GROUP_AUTHORIZATION_FAILED);
    }

    @Override
    public AnswerFilter answers(Authorizer decider, ApiMessage request, short version, KafkaPrincipal principal) {
        CommittedOffsetAccess committed = new CommittedOffsetAccess(decider);
        OffsetFetchRequestData asked = (OffsetFetchRequestData) request;
        return new AnswerFilter() {
            @Override
            public ApiMessage visible(ApiMessage answer, Map<Uuid, String> topicNames) {
                return committed.visible(asked, (OffsetFetchResponseData) answer, principal, topicNames);
            }

            @Override
            public Set<Uuid> topicIdsToName(ApiMessage answer) {
                return CommittedOffsetAccess.topicIds((OffsetFetchResponseData) answer);
            }
        };
    }
}
