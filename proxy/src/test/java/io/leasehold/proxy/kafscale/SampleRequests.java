package io.leasehold.proxy.kafscale;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.config.ConfigResource;
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
 * One valid request per API and version, with contents a broker can act on: the topic
 * {@code topic} (one partition, id {@code topicId}) and the group {@code group} exist or may be
 * created; every field set is one the version has. Requests that change state pick names of
 * their own per version, or validate only, so the matrix can run every version in any order.
 */
final class SampleRequests {
    private static final int BYTES = 1 << 20;
    private static final byte TOPIC_RESOURCE = ConfigResource.Type.TOPIC.id();
    private static final byte ANY = 1;
    private static final byte LITERAL = 3;
    private static final byte READ = 3;
    private static final byte ALLOW = 3;

    private final String topic;
    private final Uuid topicId;
    private final String group;
    private final String run;

    /** @param run a word that makes this run's created topics and groups unlike any other's */
    SampleRequests(String topic, Uuid topicId, String group, String run) {
        this.topic = topic;
        this.topicId = topicId;
        this.group = group;
        this.run = run;
    }

    /** A request of {@code api} valid in {@code version}. */
    ApiMessage of(ApiKeys api, short v) {
        return switch (api) {
            case PRODUCE -> new ProduceRequestData().setAcks((short) 1).setTimeoutMs(10_000).setTopicData(
                    new ProduceRequestData.TopicProduceDataCollection(List.of(new ProduceRequestData.TopicProduceData()
                            .setName(v < 13 ? topic : "").setTopicId(v >= 13 ? topicId : Uuid.ZERO_UUID)
                            .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData().setIndex(0)
                                    .setRecords(MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(
                                            ("v" + v).getBytes(StandardCharsets.UTF_8)))))))
                            .iterator()));
            case FETCH -> new FetchRequestData().setReplicaId(-1).setMaxWaitMs(10).setMinBytes(1).setMaxBytes(BYTES)
                    .setSessionEpoch(-1).setTopics(List.of(new FetchRequestData.FetchTopic()
                            .setTopic(v < 13 ? topic : "").setTopicId(v >= 13 ? topicId : Uuid.ZERO_UUID)
                            .setPartitions(List.of(new FetchRequestData.FetchPartition().setPartition(0)
                                    .setFetchOffset(0).setPartitionMaxBytes(BYTES)))));
            case LIST_OFFSETS -> new ListOffsetsRequestData().setReplicaId(-1).setTopics(List.of(
                    new ListOffsetsRequestData.ListOffsetsTopic().setName(topic).setPartitions(List.of(
                            new ListOffsetsRequestData.ListOffsetsPartition().setPartitionIndex(0).setTimestamp(-1)))));
            case METADATA -> new MetadataRequestData().setAllowAutoTopicCreation(v < 4)
                    .setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName(topic)));
            case OFFSET_COMMIT -> new OffsetCommitRequestData().setGroupId(group).setGenerationIdOrMemberEpoch(-1)
                    .setMemberId("").setTopics(List.of(new OffsetCommitRequestData.OffsetCommitRequestTopic()
                            .setName(v < 10 ? topic : "").setTopicId(v >= 10 ? topicId : Uuid.ZERO_UUID)
                            .setPartitions(List.of(new OffsetCommitRequestData.OffsetCommitRequestPartition()
                                    .setPartitionIndex(0).setCommittedOffset(0).setCommittedMetadata("")))));
            case OFFSET_FETCH -> offsetFetch(v);
            case FIND_COORDINATOR -> v < 4 ? new FindCoordinatorRequestData().setKey(group)
                    : new FindCoordinatorRequestData().setCoordinatorKeys(List.of(group));
            case JOIN_GROUP -> new JoinGroupRequestData().setGroupId(run + "-join-v" + v).setSessionTimeoutMs(10_000)
                    .setRebalanceTimeoutMs(v >= 1 ? 10_000 : -1).setMemberId("").setProtocolType("consumer")
                    .setProtocols(new JoinGroupRequestData.JoinGroupRequestProtocolCollection(List.of(
                            new JoinGroupRequestData.JoinGroupRequestProtocol().setName("range")
                                    .setMetadata(new byte[0])).iterator()));
            case HEARTBEAT -> new HeartbeatRequestData().setGroupId(group).setGenerationId(1).setMemberId("nobody");
            case LEAVE_GROUP -> v < 3 ? new LeaveGroupRequestData().setGroupId(group).setMemberId("nobody")
                    : new LeaveGroupRequestData().setGroupId(group).setMembers(List.of(
                            new LeaveGroupRequestData.MemberIdentity().setMemberId("nobody")));
            case SYNC_GROUP -> new SyncGroupRequestData().setGroupId(group).setGenerationId(1).setMemberId("nobody")
                    .setProtocolType(v >= 5 ? "consumer" : null).setProtocolName(v >= 5 ? "range" : null);
            case DESCRIBE_GROUPS -> new DescribeGroupsRequestData().setGroups(List.of(group));
            case LIST_GROUPS -> new ListGroupsRequestData();
            case API_VERSIONS -> new ApiVersionsRequestData().setClientSoftwareName(v >= 3 ? "matrix" : "")
                    .setClientSoftwareVersion(v >= 3 ? "1" : "");
            case CREATE_TOPICS -> new CreateTopicsRequestData().setTimeoutMs(10_000).setTopics(
                    new CreateTopicsRequestData.CreatableTopicCollection(List.of(new CreateTopicsRequestData.CreatableTopic()
                            .setName(createdTopic(v)).setNumPartitions(1).setReplicationFactor((short) 1)).iterator()));
            case DELETE_TOPICS -> v < 6 ? new DeleteTopicsRequestData().setTimeoutMs(10_000)
                    .setTopicNames(List.of(createdTopic(v)))
                    : new DeleteTopicsRequestData().setTimeoutMs(10_000).setTopics(List.of(
                            new DeleteTopicsRequestData.DeleteTopicState().setName(createdTopic(v))));
            case DELETE_GROUPS -> new DeleteGroupsRequestData().setGroupsNames(List.of(run + "-never-v" + v));
            case INIT_PRODUCER_ID -> new InitProducerIdRequestData().setTransactionalId(null)
                    .setTransactionTimeoutMs(60_000);
            case OFFSET_FOR_LEADER_EPOCH -> new OffsetForLeaderEpochRequestData().setReplicaId(v >= 3 ? -1 : -2)
                    .setTopics(new OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection(List.of(
                            new OffsetForLeaderEpochRequestData.OffsetForLeaderTopic().setTopic(topic).setPartitions(
                                    List.of(new OffsetForLeaderEpochRequestData.OffsetForLeaderPartition()
                                            .setPartition(0).setCurrentLeaderEpoch(-1).setLeaderEpoch(0))))
                            .iterator()));
            case DESCRIBE_CONFIGS -> new DescribeConfigsRequestData().setResources(List.of(
                    new DescribeConfigsRequestData.DescribeConfigsResource().setResourceType(TOPIC_RESOURCE)
                            .setResourceName(topic).setConfigurationKeys(null)));
            case ALTER_CONFIGS -> new AlterConfigsRequestData().setResources(
                    new AlterConfigsRequestData.AlterConfigsResourceCollection(List.of(
                            new AlterConfigsRequestData.AlterConfigsResource().setResourceType(TOPIC_RESOURCE)
                                    .setResourceName(topic).setConfigs(new AlterConfigsRequestData.AlterableConfigCollection(
                                            List.of(new AlterConfigsRequestData.AlterableConfig().setName("retention.ms")
                                                    .setValue("3600000")).iterator()))).iterator()));
            case INCREMENTAL_ALTER_CONFIGS -> new IncrementalAlterConfigsRequestData().setResources(
                    new IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection(List.of(
                            new IncrementalAlterConfigsRequestData.AlterConfigsResource().setResourceType(TOPIC_RESOURCE)
                                    .setResourceName(topic).setConfigs(
                                            new IncrementalAlterConfigsRequestData.AlterableConfigCollection(List.of(
                                                    new IncrementalAlterConfigsRequestData.AlterableConfig()
                                                            .setName("retention.ms").setConfigOperation((byte) 0)
                                                            .setValue("3600000")).iterator()))).iterator()));
            case CREATE_PARTITIONS -> new CreatePartitionsRequestData().setTimeoutMs(10_000).setValidateOnly(true)
                    .setTopics(new CreatePartitionsRequestData.CreatePartitionsTopicCollection(List.of(
                            new CreatePartitionsRequestData.CreatePartitionsTopic().setName(topic).setCount(2)
                                    .setAssignments(null)).iterator()));
            case DESCRIBE_ACLS -> new DescribeAclsRequestData().setResourceTypeFilter(ANY)
                    .setPatternTypeFilter(v >= 1 ? ANY : LITERAL).setOperation(ANY).setPermissionType(ANY);
            case CREATE_ACLS -> new CreateAclsRequestData().setCreations(List.of(
                    new CreateAclsRequestData.AclCreation().setResourceType((byte) 2).setResourceName(topic)
                            .setResourcePatternType(LITERAL).setPrincipal("User:matrix").setHost("*")
                            .setOperation(READ).setPermissionType(ALLOW)));
            case DELETE_ACLS -> new DeleteAclsRequestData().setFilters(List.of(
                    new DeleteAclsRequestData.DeleteAclsFilter().setResourceTypeFilter((byte) 2)
                            .setResourceNameFilter(topic).setPatternTypeFilter(LITERAL).setPrincipalFilter("User:matrix")
                            .setHostFilter("*").setOperation(READ).setPermissionType(ALLOW)));
            case DESCRIBE_CLIENT_QUOTAS -> new DescribeClientQuotasRequestData().setComponents(List.of());
            case ALTER_CLIENT_QUOTAS -> new AlterClientQuotasRequestData().setValidateOnly(true);
            case DESCRIBE_CLUSTER -> new DescribeClusterRequestData().setEndpointType((byte) 1);
            case OFFSET_DELETE -> new OffsetDeleteRequestData().setGroupId(group).setTopics(
                    new OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection(List.of(
                            new OffsetDeleteRequestData.OffsetDeleteRequestTopic().setName(topic).setPartitions(List.of(
                                    new OffsetDeleteRequestData.OffsetDeleteRequestPartition().setPartitionIndex(0))))
                            .iterator()));
            case CONSUMER_GROUP_HEARTBEAT -> new ConsumerGroupHeartbeatRequestData().setGroupId(run + "-cg-v" + v)
                    .setMemberId(Uuid.randomUuid().toString()).setMemberEpoch(0).setRebalanceTimeoutMs(10_000)
                    .setSubscribedTopicNames(List.of(topic)).setTopicPartitions(List.of());
            case CONSUMER_GROUP_DESCRIBE -> new ConsumerGroupDescribeRequestData().setGroupIds(List.of(run + "-cg-v0"));
            default -> throw new IllegalArgumentException("no sample request for " + api + " v" + v
                    + ": add one, so the matrix covers every API the proxy advertises");
        };
    }

    private ApiMessage offsetFetch(short v) {
        if (v < 8) {
            return new OffsetFetchRequestData().setGroupId(group).setTopics(List.of(
                    new OffsetFetchRequestData.OffsetFetchRequestTopic().setName(topic).setPartitionIndexes(List.of(0))));
        }
        return new OffsetFetchRequestData().setGroups(List.of(new OffsetFetchRequestData.OffsetFetchRequestGroup()
                .setGroupId(group).setTopics(List.of(new OffsetFetchRequestData.OffsetFetchRequestTopics()
                        .setName(v < 10 ? topic : "").setTopicId(v >= 10 ? topicId : Uuid.ZERO_UUID)
                        .setPartitionIndexes(List.of(0))))));
    }

    private String createdTopic(short v) {
        return run + "-created-v" + v;
    }
}
