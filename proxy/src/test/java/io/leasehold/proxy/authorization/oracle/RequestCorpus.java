package io.leasehold.proxy.authorization.oracle;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.AlterClientQuotasRequestData;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.CreateAclsRequestData;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.DeleteAclsRequestData;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DescribeAclsRequestData;
import org.apache.kafka.common.message.DescribeClientQuotasRequestData;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * For every API key the proxy may advertise, the requests the oracle sends, built in a given
 * version from kafka-clients' generated classes. Each request names resources on both sides of
 * the random ACL sets' names (allowed and refused, existing and absent) so that one request
 * shows how each side treats each of them. Requests that would change state either cannot
 * (CreateTopics, CreatePartitions and the config APIs use {@code validateOnly}; DeleteTopics names
 * absent topics) or change only what the test restores before every send (group offsets).
 * SaslHandshake and SaslAuthenticate are not built here: every connection's login sends them.
 */
final class RequestCorpus {
    static final String GROUP = "app.orders";
    static final String OTHER_GROUP = "app.secret";
    static final String GHOST_MEMBER = "oracle-ghost";
    /** Keys exercised by each connection's login rather than by a built request. */
    static final List<ApiKeys> SENT_BY_LOGIN = List.of(ApiKeys.SASL_HANDSHAKE, ApiKeys.SASL_AUTHENTICATE);

    private final Map<String, Uuid> topicIds;
    private final Map<ApiKeys, Function<Short, List<ApiMessage>>> builders = new EnumMap<>(ApiKeys.class);

    /** A corpus naming the existing topics {@code orders} (2 partitions), {@code orders.eu} and {@code secret.x} by the ids given. */
    RequestCorpus(Map<String, Uuid> topicIds) {
        this.topicIds = topicIds;
        builders.put(ApiKeys.PRODUCE, v -> List.of(produce()));
        builders.put(ApiKeys.FETCH, v -> List.of(fetch(v)));
        builders.put(ApiKeys.LIST_OFFSETS, v -> List.of(listOffsets()));
        builders.put(ApiKeys.METADATA, this::metadata);
        builders.put(ApiKeys.OFFSET_COMMIT, v -> List.of(offsetCommit(v)));
        builders.put(ApiKeys.OFFSET_FETCH, v -> List.of(offsetFetch(v)));
        builders.put(ApiKeys.FIND_COORDINATOR, v -> List.of(findCoordinator(v)));
        builders.put(ApiKeys.JOIN_GROUP, v -> List.of(joinGroup()));
        builders.put(ApiKeys.HEARTBEAT, v -> List.of(new HeartbeatRequestData().setGroupId(GROUP).setGenerationId(1)
                .setMemberId(GHOST_MEMBER)));
        builders.put(ApiKeys.LEAVE_GROUP, v -> List.of(leaveGroup(v)));
        builders.put(ApiKeys.SYNC_GROUP, v -> List.of(new SyncGroupRequestData().setGroupId(GROUP).setGenerationId(1)
                .setMemberId(GHOST_MEMBER).setProtocolType("consumer").setProtocolName("range")));
        builders.put(ApiKeys.DESCRIBE_GROUPS, v -> List.of(new DescribeGroupsRequestData()
                .setGroups(List.of(GROUP, OTHER_GROUP, "app.none"))));
        builders.put(ApiKeys.LIST_GROUPS, v -> List.of(new ListGroupsRequestData()));
        builders.put(ApiKeys.API_VERSIONS, v -> List.of(new ApiVersionsRequestData()
                .setClientSoftwareName("leasehold-oracle").setClientSoftwareVersion("1")));
        builders.put(ApiKeys.CREATE_TOPICS, v -> List.of(createTopics()));
        builders.put(ApiKeys.DELETE_TOPICS, v -> List.of(deleteTopics(v)));
        builders.put(ApiKeys.INIT_PRODUCER_ID, v -> List.of(new InitProducerIdRequestData().setTransactionalId(null)
                .setTransactionTimeoutMs(-1)));
        builders.put(ApiKeys.OFFSET_FOR_LEADER_EPOCH, v -> List.of(offsetForLeaderEpoch()));
        builders.put(ApiKeys.DESCRIBE_ACLS, v -> List.of(new DescribeAclsRequestData().setResourceTypeFilter((byte) 1)
                .setPatternTypeFilter((byte) (v == 0 ? 3 : 1)).setPermissionType((byte) 1).setOperation((byte) 1)));
        builders.put(ApiKeys.CREATE_ACLS, v -> List.of(new CreateAclsRequestData().setCreations(List.of(
                new CreateAclsRequestData.AclCreation().setResourceType((byte) 2).setResourceName("orders")
                        .setResourcePatternType((byte) 3).setPrincipal("User:bob").setHost("*")
                        .setOperation((byte) 3).setPermissionType((byte) 3)))));
        builders.put(ApiKeys.DELETE_ACLS, v -> List.of(new DeleteAclsRequestData().setFilters(List.of(
                new DeleteAclsRequestData.DeleteAclsFilter().setResourceTypeFilter((byte) 1)
                        .setPatternTypeFilter((byte) (v == 0 ? 3 : 1)).setPermissionType((byte) 1)
                        .setOperation((byte) 1)))));
        builders.put(ApiKeys.DESCRIBE_CONFIGS, v -> List.of(describeConfigs()));
        builders.put(ApiKeys.ALTER_CONFIGS, v -> List.of(alterConfigs()));
        builders.put(ApiKeys.CREATE_PARTITIONS, v -> List.of(createPartitions()));
        builders.put(ApiKeys.DELETE_GROUPS, v -> List.of(new DeleteGroupsRequestData()
                .setGroupsNames(List.of(GROUP, OTHER_GROUP))));
        builders.put(ApiKeys.INCREMENTAL_ALTER_CONFIGS, v -> List.of(incrementalAlterConfigs()));
        builders.put(ApiKeys.OFFSET_DELETE, v -> List.of(offsetDelete()));
        builders.put(ApiKeys.DESCRIBE_CLIENT_QUOTAS, v -> List.of(new DescribeClientQuotasRequestData()
                .setComponents(List.of()).setStrict(false)));
        builders.put(ApiKeys.ALTER_CLIENT_QUOTAS, v -> List.of(alterClientQuotas()));
        builders.put(ApiKeys.DESCRIBE_CLUSTER, v -> List.of(new DescribeClusterRequestData()
                .setEndpointType((byte) 1)));
        builders.put(ApiKeys.CONSUMER_GROUP_HEARTBEAT, v -> List.of(new ConsumerGroupHeartbeatRequestData()
                .setGroupId(GROUP).setMemberId(GHOST_MEMBER).setMemberEpoch(5)));
        builders.put(ApiKeys.CONSUMER_GROUP_DESCRIBE, v -> List.of(new ConsumerGroupDescribeRequestData()
                .setGroupIds(List.of(GROUP, OTHER_GROUP))));
    }

    /** Whether a request can be built for {@code api}, or its login covers it. */
    boolean covers(ApiKeys api) {
        return builders.containsKey(api) || SENT_BY_LOGIN.contains(api);
    }

    /** The requests for {@code api} in {@code version}; empty for the keys the login sends. */
    List<ApiMessage> requests(ApiKeys api, short version) {
        Function<Short, List<ApiMessage>> builder = builders.get(api);
        return builder == null ? List.of() : builder.apply(version);
    }

    /** Whether a request of {@code api} can change what the state check looks at. */
    static boolean mutates(ApiKeys api) {
        return api == ApiKeys.PRODUCE || api == ApiKeys.OFFSET_COMMIT || api == ApiKeys.DELETE_GROUPS
                || api == ApiKeys.OFFSET_DELETE || api == ApiKeys.CREATE_TOPICS || api == ApiKeys.DELETE_TOPICS
                || api == ApiKeys.CREATE_PARTITIONS || api == ApiKeys.ALTER_CONFIGS
                || api == ApiKeys.INCREMENTAL_ALTER_CONFIGS;
    }

    private static ProduceRequestData produce() {
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        for (String topic : List.of("orders", "secret.x")) {
            topics.add(new ProduceRequestData.TopicProduceData().setName(topic).setPartitionData(List.of(
                    new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(MemoryRecords.withRecords(
                            Compression.NONE, new SimpleRecord("k".getBytes(StandardCharsets.UTF_8),
                                    "oracle".getBytes(StandardCharsets.UTF_8)))))));
        }
        return new ProduceRequestData().setAcks((short) 1).setTimeoutMs(10_000).setTopicData(topics);
    }

    private FetchRequestData fetch(short version) {
        List<FetchRequestData.FetchTopic> topics = new ArrayList<>();
        for (String topic : List.of("orders", "secret.x")) {
            FetchRequestData.FetchTopic fetchTopic = new FetchRequestData.FetchTopic().setPartitions(List.of(
                    new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(0)
                            .setPartitionMaxBytes(1 << 20)));
            topics.add(version >= 13 ? fetchTopic.setTopicId(topicIds.get(topic)) : fetchTopic.setTopic(topic));
        }
        return new FetchRequestData().setReplicaId(-1).setMaxWaitMs(0).setMinBytes(0).setMaxBytes(1 << 20)
                .setSessionId(0).setSessionEpoch(-1).setTopics(topics);
    }

    private static ListOffsetsRequestData listOffsets() {
        List<ListOffsetsRequestData.ListOffsetsTopic> topics = new ArrayList<>();
        for (String topic : List.of("orders", "secret.x")) {
            topics.add(new ListOffsetsRequestData.ListOffsetsTopic().setName(topic).setPartitions(List.of(
                    new ListOffsetsRequestData.ListOffsetsPartition().setPartitionIndex(0).setTimestamp(-1))));
        }
        return new ListOffsetsRequestData().setReplicaId(-1).setTopics(topics);
    }

    /** All topics, three named ones (one absent), and from v10 two by id. */
    private List<ApiMessage> metadata(short version) {
        List<ApiMessage> requests = new ArrayList<>();
        // Below v4 auto-creation cannot be turned off in the request; the broker's own setting keeps it off.
        requests.add(new MetadataRequestData().setTopics(version == 0 ? List.of() : null)
                .setAllowAutoTopicCreation(version < 4));
        List<MetadataRequestData.MetadataRequestTopic> named = new ArrayList<>();
        for (String topic : List.of("orders", "secret.x", "orders.absent")) {
            named.add(new MetadataRequestData.MetadataRequestTopic().setName(topic));
        }
        requests.add(new MetadataRequestData().setTopics(named).setAllowAutoTopicCreation(version < 4));
        if (version >= 10) {
            List<MetadataRequestData.MetadataRequestTopic> byId = new ArrayList<>();
            for (String topic : List.of("orders.eu", "secret.x")) {
                byId.add(new MetadataRequestData.MetadataRequestTopic().setName(null)
                        .setTopicId(topicIds.get(topic)));
            }
            requests.add(new MetadataRequestData().setTopics(byId).setAllowAutoTopicCreation(false));
        }
        return requests;
    }

    private OffsetCommitRequestData offsetCommit(short version) {
        List<OffsetCommitRequestData.OffsetCommitRequestTopic> topics = new ArrayList<>();
        for (String topic : List.of("orders", "secret.x")) {
            OffsetCommitRequestData.OffsetCommitRequestTopic commit = new OffsetCommitRequestData.OffsetCommitRequestTopic()
                    .setPartitions(List.of(new OffsetCommitRequestData.OffsetCommitRequestPartition()
                            .setPartitionIndex(0).setCommittedOffset(0)));
            topics.add(version >= 10 ? commit.setTopicId(topicIds.get(topic)) : commit.setName(topic));
        }
        return new OffsetCommitRequestData().setGroupId(GROUP).setGenerationIdOrMemberEpoch(-1).setMemberId("")
                .setTopics(topics);
    }

    private OffsetFetchRequestData offsetFetch(short version) {
        if (version < 8) {
            List<OffsetFetchRequestData.OffsetFetchRequestTopic> topics = version < 2 ? new ArrayList<>() : null;
            if (topics != null) {
                for (String topic : List.of("orders", "secret.x")) {
                    topics.add(new OffsetFetchRequestData.OffsetFetchRequestTopic().setName(topic)
                            .setPartitionIndexes(List.of(0)));
                }
            }
            return new OffsetFetchRequestData().setGroupId(GROUP).setTopics(topics);
        }
        List<OffsetFetchRequestData.OffsetFetchRequestTopics> named = new ArrayList<>();
        for (String topic : List.of("orders", "secret.x")) {
            OffsetFetchRequestData.OffsetFetchRequestTopics one = new OffsetFetchRequestData.OffsetFetchRequestTopics()
                    .setPartitionIndexes(List.of(0));
            named.add(version >= 10 ? one.setTopicId(topicIds.get(topic)) : one.setName(topic));
        }
        return new OffsetFetchRequestData().setGroups(List.of(
                new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId(GROUP).setTopics(null),
                new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId(OTHER_GROUP).setTopics(named)));
    }

    private static FindCoordinatorRequestData findCoordinator(short version) {
        return version < 4 ? new FindCoordinatorRequestData().setKey(GROUP)
                : new FindCoordinatorRequestData().setCoordinatorKeys(List.of(GROUP, OTHER_GROUP));
    }

    private static JoinGroupRequestData joinGroup() {
        JoinGroupRequestData.JoinGroupRequestProtocolCollection protocols =
                new JoinGroupRequestData.JoinGroupRequestProtocolCollection();
        protocols.add(new JoinGroupRequestData.JoinGroupRequestProtocol().setName("range").setMetadata(new byte[0]));
        return new JoinGroupRequestData().setGroupId(GROUP).setMemberId(GHOST_MEMBER).setProtocolType("consumer")
                .setSessionTimeoutMs(10_000).setRebalanceTimeoutMs(10_000).setProtocols(protocols);
    }

    private static LeaveGroupRequestData leaveGroup(short version) {
        return version < 3 ? new LeaveGroupRequestData().setGroupId(GROUP).setMemberId(GHOST_MEMBER)
                : new LeaveGroupRequestData().setGroupId(GROUP).setMembers(List.of(
                        new LeaveGroupRequestData.MemberIdentity().setMemberId(GHOST_MEMBER)));
    }

    private static CreateTopicsRequestData createTopics() {
        CreateTopicsRequestData.CreatableTopicCollection topics = new CreateTopicsRequestData.CreatableTopicCollection();
        for (String topic : List.of("orders.new", "secret.new", "orders")) {
            topics.add(new CreateTopicsRequestData.CreatableTopic().setName(topic).setNumPartitions(1)
                    .setReplicationFactor((short) 1));
        }
        return new CreateTopicsRequestData().setTopics(topics).setTimeoutMs(10_000).setValidateOnly(true);
    }

    private static DeleteTopicsRequestData deleteTopics(short version) {
        List<String> absent = List.of("orders.gone", "secret.gone");
        if (version < 6) {
            return new DeleteTopicsRequestData().setTopicNames(absent).setTimeoutMs(10_000);
        }
        return new DeleteTopicsRequestData().setTimeoutMs(10_000).setTopics(absent.stream()
                .map(name -> new DeleteTopicsRequestData.DeleteTopicState().setName(name)).toList());
    }

    private static OffsetForLeaderEpochRequestData offsetForLeaderEpoch() {
        OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection topics =
                new OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection();
        for (String topic : List.of("orders", "secret.x")) {
            topics.add(new OffsetForLeaderEpochRequestData.OffsetForLeaderTopic().setTopic(topic).setPartitions(List.of(
                    new OffsetForLeaderEpochRequestData.OffsetForLeaderPartition().setPartition(0).setLeaderEpoch(0))));
        }
        return new OffsetForLeaderEpochRequestData().setReplicaId(-1).setTopics(topics);
    }

    private static DescribeConfigsRequestData describeConfigs() {
        List<DescribeConfigsRequestData.DescribeConfigsResource> resources = new ArrayList<>();
        for (String topic : List.of("orders", "secret.x")) {
            resources.add(new DescribeConfigsRequestData.DescribeConfigsResource().setResourceType((byte) 2)
                    .setResourceName(topic).setConfigurationKeys(List.of("retention.ms", "cleanup.policy")));
        }
        return new DescribeConfigsRequestData().setResources(resources);
    }

    private static AlterConfigsRequestData alterConfigs() {
        AlterConfigsRequestData.AlterConfigsResourceCollection resources =
                new AlterConfigsRequestData.AlterConfigsResourceCollection();
        for (String topic : List.of("orders", "secret.x")) {
            AlterConfigsRequestData.AlterableConfigCollection configs = new AlterConfigsRequestData.AlterableConfigCollection();
            configs.add(new AlterConfigsRequestData.AlterableConfig().setName("retention.ms").setValue("3600000"));
            resources.add(new AlterConfigsRequestData.AlterConfigsResource().setResourceType((byte) 2)
                    .setResourceName(topic).setConfigs(configs));
        }
        return new AlterConfigsRequestData().setResources(resources).setValidateOnly(true);
    }

    private static IncrementalAlterConfigsRequestData incrementalAlterConfigs() {
        IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection resources =
                new IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection();
        for (String topic : List.of("orders", "secret.x")) {
            IncrementalAlterConfigsRequestData.AlterableConfigCollection configs =
                    new IncrementalAlterConfigsRequestData.AlterableConfigCollection();
            configs.add(new IncrementalAlterConfigsRequestData.AlterableConfig().setName("retention.ms")
                    .setConfigOperation((byte) 0).setValue("3600000"));
            resources.add(new IncrementalAlterConfigsRequestData.AlterConfigsResource().setResourceType((byte) 2)
                    .setResourceName(topic).setConfigs(configs));
        }
        return new IncrementalAlterConfigsRequestData().setResources(resources).setValidateOnly(true);
    }

    private static CreatePartitionsRequestData createPartitions() {
        CreatePartitionsRequestData.CreatePartitionsTopicCollection topics =
                new CreatePartitionsRequestData.CreatePartitionsTopicCollection();
        for (String topic : List.of("orders", "secret.x")) {
            topics.add(new CreatePartitionsRequestData.CreatePartitionsTopic().setName(topic).setCount(5)
                    .setAssignments(null));
        }
        return new CreatePartitionsRequestData().setTopics(topics).setTimeoutMs(10_000).setValidateOnly(true);
    }

    private static OffsetDeleteRequestData offsetDelete() {
        OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection topics =
                new OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection();
        for (String topic : List.of("orders", "secret.x")) {
            topics.add(new OffsetDeleteRequestData.OffsetDeleteRequestTopic().setName(topic).setPartitions(List.of(
                    new OffsetDeleteRequestData.OffsetDeleteRequestPartition().setPartitionIndex(0))));
        }
        return new OffsetDeleteRequestData().setGroupId(GROUP).setTopics(topics);
    }

    private static AlterClientQuotasRequestData alterClientQuotas() {
        return new AlterClientQuotasRequestData().setValidateOnly(true).setEntries(List.of(
                new AlterClientQuotasRequestData.EntryData()
                        .setEntity(List.of(new AlterClientQuotasRequestData.EntityData().setEntityType("user")
                                .setEntityName("alice")))
                        .setOps(List.of(new AlterClientQuotasRequestData.OpData().setKey("consumer_byte_rate")
                                .setValue(1000).setRemove(false)))));
    }
}
