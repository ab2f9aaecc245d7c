package io.leasehold.proxy.access;

import io.leasehold.proxy.authorization.Authorizer;
import io.leasehold.proxy.exchange.EntryAccess;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * What each partition-keyed API needs per entry, as Kafka checks it: Produce WRITE, Fetch READ,
 * ListOffsets and OffsetForLeaderEpoch DESCRIBE on the topic (TOPIC_AUTHORIZATION_FAILED);
 * DescribeGroups, ConsumerGroupDescribe and OffsetFetch DESCRIBE, DeleteGroups DELETE on the
 * group (GROUP_AUTHORIZATION_FAILED). The topics a ConsumerGroupDescribe answer names are decided
 * in the answer, by {@link DescribedGroupAccess}.
 */
public final class PartitionAccess {
    private record Need(ResourceType type, AclOperation operation, Errors refusal) {
    }

    private static final Map<ApiKeys, Need> NEEDS = Map.of(
            ApiKeys.PRODUCE, new Need(ResourceType.TOPIC, AclOperation.WRITE, Errors.TOPIC_AUTHORIZATION_FAILED),
            ApiKeys.FETCH, new Need(ResourceType.TOPIC, AclOperation.READ, Errors.TOPIC_AUTHORIZATION_FAILED),
            ApiKeys.LIST_OFFSETS, new Need(ResourceType.TOPIC, AclOperation.DESCRIBE,
                    Errors.TOPIC_AUTHORIZATION_FAILED),
            ApiKeys.OFFSET_FOR_LEADER_EPOCH, new Need(ResourceType.TOPIC, AclOperation.DESCRIBE,
                    Errors.TOPIC_AUTHORIZATION_FAILED),
            ApiKeys.DESCRIBE_GROUPS, new Need(ResourceType.GROUP, AclOperation.DESCRIBE,
                    Errors.GROUP_AUTHORIZATION_FAILED),
            ApiKeys.CONSUMER_GROUP_DESCRIBE, new Need(ResourceType.GROUP, AclOperation.DESCRIBE,
                    Errors.GROUP_AUTHORIZATION_FAILED),
            ApiKeys.OFFSET_FETCH, new Need(ResourceType.GROUP, AclOperation.DESCRIBE,
                    Errors.GROUP_AUTHORIZATION_FAILED),
            ApiKeys.DELETE_GROUPS, new Need(ResourceType.GROUP, AclOperation.DELETE,
                    Errors.GROUP_AUTHORIZATION_FAILED));

    private final Authorizer authorizer;

    public PartitionAccess(Authorizer authorizer) {
        this.authorizer = authorizer;
    }

    /**
     * The entry check for one request of {@code api} by {@code principal}; a name is checked once
     * per request however many partitions it has.
     */
    public EntryAccess of(ApiKeys api, KafkaPrincipal principal) {
        Need need = NEEDS.get(api);
        if (!authorizer.enabled() || need == null) {
            return EntryAccess.everything();
        }
        Map<String, Boolean> allowed = new HashMap<>();
        return name -> allowed.computeIfAbsent(name, n -> authorizer.allows(principal, need.operation(), need.type(), n))
                ? null : need.refusal();
    }
}
