package io.leasehold.proxy.access;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The access rule of every API the proxy serves, by API key: the list of what Leasehold checks,
 * one line per API, each rule's class saying the rest.
 */
public final class AccessRules {
    private final Map<ApiKeys, AccessRule> rules;

    /** The proxy's rules, as Kafka's authorizer applies them. */
    public AccessRules() {
        Map<ApiKeys, AccessRule> r = new EnumMap<>(ApiKeys.class);
        AccessRule nothing = new NothingNeeded();
        r.put(ApiKeys.API_VERSIONS, nothing);
        r.put(ApiKeys.DESCRIBE_CLUSTER, nothing);
        r.put(ApiKeys.METADATA, new MetadataRule());
        r.put(ApiKeys.FIND_COORDINATOR, new FindCoordinatorRule());
        r.put(ApiKeys.PRODUCE, new TopicEntriesRule(AclOperation.WRITE));
        r.put(ApiKeys.FETCH, new TopicEntriesRule(AclOperation.READ));
        r.put(ApiKeys.LIST_OFFSETS, new TopicEntriesRule(AclOperation.DESCRIBE));
        r.put(ApiKeys.OFFSET_FOR_LEADER_EPOCH, new TopicEntriesRule(AclOperation.DESCRIBE));
        AccessRule membership = new GroupMembershipRule();
        for (ApiKeys api : new ApiKeys[] {ApiKeys.JOIN_GROUP, ApiKeys.SYNC_GROUP, ApiKeys.HEARTBEAT,
                ApiKeys.LEAVE_GROUP}) {
            r.put(api, membership);
        }
        r.put(ApiKeys.CONSUMER_GROUP_HEARTBEAT, new ConsumerGroupHeartbeatRule());
        r.put(ApiKeys.OFFSET_COMMIT, new OffsetCommitRule());
        r.put(ApiKeys.OFFSET_DELETE, new OffsetDeleteRule());
        r.put(ApiKeys.OFFSET_FETCH, new OffsetFetchRule());
        r.put(ApiKeys.DESCRIBE_GROUPS, new GroupEntriesRule(AclOperation.DESCRIBE));
        r.put(ApiKeys.DELETE_GROUPS, new GroupEntriesRule(AclOperation.DELETE));
        r.put(ApiKeys.CONSUMER_GROUP_DESCRIBE, new ConsumerGroupDescribeRule());
        r.put(ApiKeys.LIST_GROUPS, new ListGroupsRule());
        AccessRule perResource = new ResourceByResourceRule();
        for (ApiKeys api : new ApiKeys[] {ApiKeys.CREATE_TOPICS, ApiKeys.DELETE_TOPICS, ApiKeys.CREATE_PARTITIONS,
                ApiKeys.DESCRIBE_CONFIGS, ApiKeys.ALTER_CONFIGS, ApiKeys.INCREMENTAL_ALTER_CONFIGS}) {
            r.put(api, perResource);
        }
        r.put(ApiKeys.INIT_PRODUCER_ID, new InitProducerIdRule());
        r.put(ApiKeys.DESCRIBE_CLIENT_QUOTAS, new ClientQuotasRule(AclOperation.DESCRIBE_CONFIGS));
        r.put(ApiKeys.ALTER_CLIENT_QUOTAS, new ClientQuotasRule(AclOperation.ALTER_CONFIGS));
        r.put(ApiKeys.DESCRIBE_ACLS, new DescribeAclsRule());
        AccessRule aclChange = new AclChangeRule();
        r.put(ApiKeys.CREATE_ACLS, aclChange);
        r.put(ApiKeys.DELETE_ACLS, aclChange);
        this.rules = Collections.unmodifiableMap(r);
    }

    /** The rule of {@code api}; the proxy serves no API without one. */
    public AccessRule of(ApiKeys api) {
        AccessRule rule = rules.get(api);
        if (rule == null) {
            throw new IllegalStateException("no access rule for " + api.name
                    + ": the proxy must not serve an API whose ACL checks are not written down");
        }
        return rule;
    }

    /** The APIs that have a rule. */
    public Set<ApiKeys> apis() {
        return rules.keySet();
    }
}
