package io.leasehold.proxy.access;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.leasehold.proxy.exchange.AdminSplit;
import io.leasehold.proxy.protocol.KafkaMessages;
import io.leasehold.proxy.testing.YamlAcls;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.junit.jupiter.api.Test;

/**
 * The admin APIs decided resource by resource: which part goes on to a broker, and the merged
 * answer (refused resources with their own error, the broker's results for the rest, in the
 * request's order) readable in every version the proxy may answer.
 */
class AdminAccessTest {
    private static final KafkaPrincipal ALICE = new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "alice");
    private static final KafkaPrincipal OPS = new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "ops");
    private static final short TOPIC = ConfigResource.Type.TOPIC.id();
    private static final short BROKER = ConfigResource.Type.BROKER.id();
    private static final short GROUP = ConfigResource.Type.GROUP.id();

    private final AdminAccess access = new AdminAccess(YamlAcls.authorizer("""
            acls:
              - {principal: "User:alice", resourceType: TOPIC, patternType: PREFIXED, name: orders,
                 operations: [CREATE, DELETE, ALTER, ALTER_CONFIGS], permission: ALLOW}
              - {principal: "User:alice", resourceType: TOPIC, patternType: PREFIXED, name: seen-,
                 operations: [DESCRIBE], permission: ALLOW}
              - {principal: "User:alice", resourceType: TOPIC, patternType: PREFIXED, name: read-,
                 operations: [READ], permission: ALLOW}
              - {principal: "User:alice", resourceType: GROUP, patternType: PREFIXED, name: billing-,
                 operations: [ALL], permission: ALLOW}
              - {principal: "User:ops", resourceType: CLUSTER, operations: [CREATE, DESCRIBE_CONFIGS],
                 permission: ALLOW}
            """, new SimpleMeterRegistry()));

    /** {@code answer} written and read back in {@code version}, as the client gets it. */
    @SuppressWarnings("unchecked")
    private static <T extends ApiMessage> T asClientReads(ApiKeys api, short version, ApiMessage answer) {
        ByteBuf frame = KafkaMessages.encodeResponse(ByteBufAllocator.DEFAULT, api, version, 7, answer);
        try {
            return (T) KafkaMessages.decodeResponse(frame, api, version);
        } finally {
            frame.release();
        }
    }

    @Test
    void createTopicsCarriesOutTheTopicsWithCreateAndRefusesTheOthersInRequestOrder() {
        CreateTopicsRequestData request = new CreateTopicsRequestData();
        for (String name : List.of("orders-new", "payments", "orders-2")) {
            request.topics().add(new CreateTopicsRequestData.CreatableTopic().setName(name).setNumPartitions(3));
        }
        AdminSplit split = access.split(request, ALICE, Map.of());

        assertThat(split.allAllowed()).isFalse();
        assertThat(split.noneAllowed()).isFalse();
        assertThat(((CreateTopicsRequestData) split.allowedPart()).topics()).extracting(t -> t.name())
                .containsExactly("orders-new", "orders-2");
        assertThat(request.topics()).as("the client's request is left as it is").hasSize(3);
        CreateTopicsResponseData broker = new CreateTopicsResponseData();
        broker.topics().add(new CreateTopicsResponseData.CreatableTopicResult().setName("orders-2")
                .setNumPartitions(3));
        broker.topics().add(new CreateTopicsResponseData.CreatableTopicResult().setName("orders-new")
                .setErrorCode(Errors.TOPIC_ALREADY_EXISTS.code()));
        ApiMessage merged = split.answer(broker);

        for (short version = ApiKeys.CREATE_TOPICS.oldestVersion(); version <= ApiKeys.CREATE_TOPICS.latestVersion();
             version++) {
            CreateTopicsResponseData read = asClientReads(ApiKeys.CREATE_TOPICS, version, merged);
            assertThat(read.topics()).as("v%d", version).extracting(t -> t.name(), t -> Errors.forCode(t.errorCode()))
                    .containsExactly(tuple("orders-new", Errors.TOPIC_ALREADY_EXISTS),
                            tuple("payments", Errors.TOPIC_AUTHORIZATION_FAILED),
                            tuple("orders-2", Errors.NONE));
            if (version >= 1) {
                assertThat(read.topics().find("payments").errorMessage()).isEqualTo(
                        "Not authorized to CREATE topic payments");
            }
        }
        assertThat(access.split(request, OPS, Map.of()).allAllowed()).as("CREATE on the cluster covers every topic")
                .isTrue();
    }

    @Test
    void offsetCommitCommitsTheTopicsWithReadAndRefusesTheOthersOnEachPartition() {
        OffsetCommitRequestData request = new OffsetCommitRequestData().setGroupId("billing-1");
        request.topics().add(commitTopic("payments", Uuid.ZERO_UUID, 0, 1));
        request.topics().add(commitTopic("read-a", Uuid.ZERO_UUID, 0));
        AdminSplit split = access.split(request, ALICE, Map.of());

        assertThat(((OffsetCommitRequestData) split.allowedPart()).topics()).extracting(t -> t.name())
                .containsExactly("read-a");
        OffsetCommitResponseData broker = new OffsetCommitResponseData();
        broker.topics().add(new OffsetCommitResponseData.OffsetCommitResponseTopic().setName("read-a").setPartitions(
                List.of(new OffsetCommitResponseData.OffsetCommitResponsePartition().setPartitionIndex(0))));
        ApiMessage merged = split.answer(broker);
        for (short version = 2; version < 10; version++) {
            OffsetCommitResponseData read = asClientReads(ApiKeys.OFFSET_COMMIT, version, merged);
            assertThat(read.topics()).as("v%d", version).flatExtracting(t -> t.partitions().stream()
                            .map(p -> tuple(t.name(), p.partitionIndex(), Errors.forCode(p.errorCode()))).toList())
                    .containsExactly(tuple("payments", 0, Errors.TOPIC_AUTHORIZATION_FAILED),
                            tuple("payments", 1, Errors.TOPIC_AUTHORIZATION_FAILED),
                            tuple("read-a", 0, Errors.NONE));
        }
    }

    @Test
    void offsetCommitByTopicIdIsDecidedOnTheTopicsNameAndAnUnknownIdIsUnknown() {
        Uuid readable = Uuid.randomUuid();
        Uuid refused = Uuid.randomUuid();
        Uuid unknown = Uuid.randomUuid();
        OffsetCommitRequestData request = new OffsetCommitRequestData().setGroupId("billing-1");
        request.topics().add(commitTopic("", readable, 0));
        request.topics().add(commitTopic("", refused, 0));
        request.topics().add(commitTopic("", unknown, 0));
        assertThat(AdminAccess.topicIds(request)).containsExactlyInAnyOrder(readable, refused, unknown);
        AdminSplit split = access.split(request, ALICE, Map.of(readable, "read-b", refused, "payments"));

        assertThat(((OffsetCommitRequestData) split.allowedPart()).topics()).extracting(t -> t.topicId())
                .containsExactly(readable);
        OffsetCommitResponseData broker = new OffsetCommitResponseData();
        broker.topics().add(new OffsetCommitResponseData.OffsetCommitResponseTopic().setTopicId(readable)
                .setPartitions(List.of(new OffsetCommitResponseData.OffsetCommitResponsePartition())));
        OffsetCommitResponseData read = asClientReads(ApiKeys.OFFSET_COMMIT, (short) 10, split.answer(broker));
        assertThat(read.topics()).extracting(t -> t.topicId(), t -> Errors.forCode(t.partitions().get(0).errorCode()))
                .containsExactly(tuple(readable, Errors.NONE), tuple(refused, Errors.TOPIC_AUTHORIZATION_FAILED),
                        tuple(unknown, Errors.UNKNOWN_TOPIC_ID));
    }

    @Test
    void offsetDeleteNeedsReadOnEachTopic() {
        OffsetDeleteRequestData request = new OffsetDeleteRequestData().setGroupId("billing-1");
        for (String name : List.of("read-a", "payments")) {
            request.topics().add(new OffsetDeleteRequestData.OffsetDeleteRequestTopic().setName(name)
                    .setPartitions(List.of(new OffsetDeleteRequestData.OffsetDeleteRequestPartition()
                            .setPartitionIndex(0))));
        }
        AdminSplit split = access.split(request, ALICE, Map.of());

        assertThat(((OffsetDeleteRequestData) split.allowedPart()).topics()).extracting(t -> t.name())
                .containsExactly("read-a");
        OffsetDeleteResponseData broker = new OffsetDeleteResponseData();
        OffsetDeleteResponseData.OffsetDeleteResponsePartitionCollection deleted =
                new OffsetDeleteResponseData.OffsetDeleteResponsePartitionCollection();
        deleted.add(new OffsetDeleteResponseData.OffsetDeleteResponsePartition().setPartitionIndex(0));
        broker.topics().add(new OffsetDeleteResponseData.OffsetDeleteResponseTopic().setName("read-a")
                .setPartitions(deleted));
        OffsetDeleteResponseData read = asClientReads(ApiKeys.OFFSET_DELETE, (short) 0, split.answer(broker));
        assertThat(read.topics()).extracting(t -> t.name(),
                        t -> Errors.forCode(t.partitions().find(0).errorCode()))
                .containsExactly(tuple("read-a", Errors.NONE), tuple("payments", Errors.TOPIC_AUTHORIZATION_FAILED));
    }

    private static OffsetCommitRequestData.OffsetCommitRequestTopic commitTopic(String name, Uuid id,
                                                                               int... partitions) {
        List<OffsetCommitRequestData.OffsetCommitRequestPartition> offsets = new ArrayList<>();
        for (int partition : partitions) {
            offsets.add(new OffsetCommitRequestData.OffsetCommitRequestPartition().setPartitionIndex(partition)
                    .setCommittedOffset(5));
        }
        return new OffsetCommitRequestData.OffsetCommitRequestTopic().setName(name).setTopicId(id)
                .setPartitions(offsets);
    }

    @Test
    void aRequestWithNothingAllowedIsAnsweredByTheProxyAlone() {
        CreatePartitionsRequestData request = new CreatePartitionsRequestData();
        for (String name : List.of("payments", "invoices")) {
            request.topics().add(new CreatePartitionsRequestData.CreatePartitionsTopic().setName(name).setCount(6));
        }
        AdminSplit split = access.split(request, ALICE, Map.of());

        assertThat(split.noneAllowed()).isTrue();
        for (short version = ApiKeys.CREATE_PARTITIONS.oldestVersion();
             version <= ApiKeys.CREATE_PARTITIONS.latestVersion(); version++) {
            CreatePartitionsResponseData read = asClientReads(ApiKeys.CREATE_PARTITIONS, version, split.answer(null));
            assertThat(read.results()).as("v%d", version).extracting(r -> r.name(), r -> r.errorCode())
                    .containsExactly(tuple("payments",
                                    Errors.TOPIC_AUTHORIZATION_FAILED.code()),
                            tuple("invoices", Errors.TOPIC_AUTHORIZATION_FAILED.code()));
        }
    }

    @Test
    void createPartitionsNeedsAlterOnEachTopic() {
        CreatePartitionsRequestData request = new CreatePartitionsRequestData();
        for (String name : List.of("payments", "orders-eu")) {
            request.topics().add(new CreatePartitionsRequestData.CreatePartitionsTopic().setName(name).setCount(6));
        }
        AdminSplit split = access.split(request, ALICE, Map.of());

        assertThat(((CreatePartitionsRequestData) split.allowedPart()).topics()).extracting(t -> t.name())
                .containsExactly("orders-eu");
        CreatePartitionsResponseData broker = new CreatePartitionsResponseData();
        broker.results().add(new CreatePartitionsResponseData.CreatePartitionsTopicResult().setName("orders-eu"));
        assertThat(((CreatePartitionsResponseData) split.answer(broker)).results())
                .extracting(r -> r.name(), r -> r.errorCode())
                .containsExactly(tuple("payments",
                        Errors.TOPIC_AUTHORIZATION_FAILED.code()), tuple("orders-eu",
                        Errors.NONE.code()));
    }

    @Test
    void deleteTopicsByNameBeforeVersion6RefusesTopicsWithoutDelete() {
        DeleteTopicsRequestData request = new DeleteTopicsRequestData().setTopicNames(List.of("payments", "orders-eu"));
        AdminSplit split = access.split(request, ALICE, Map.of());

        assertThat(((DeleteTopicsRequestData) split.allowedPart()).topicNames()).containsExactly("orders-eu");
        DeleteTopicsResponseData broker = new DeleteTopicsResponseData();
        broker.responses().add(new DeleteTopicsResponseData.DeletableTopicResult().setName("orders-eu"));
        ApiMessage merged = split.answer(broker);
        for (short version = ApiKeys.DELETE_TOPICS.oldestVersion(); version < 6; version++) {
            DeleteTopicsResponseData read = asClientReads(ApiKeys.DELETE_TOPICS, version, merged);
            assertThat(read.responses()).as("v%d", version).extracting(r -> r.name(), r -> r.errorCode())
                    .containsExactly(tuple("payments",
                            Errors.TOPIC_AUTHORIZATION_FAILED.code()), tuple("orders-eu",
                            Errors.NONE.code()));
        }
    }

    @Test
    void deletingAMissingTopicThePrincipalMayDescribeButNotDeleteIsUnknownAsKafkaAnswersIt() {
        DeleteTopicsRequestData request = new DeleteTopicsRequestData()
                .setTopicNames(List.of("seen-gone", "payments", "orders-eu", "seen-here"));
        assertThat(access.topicsWhoseExistenceDecides(request, ALICE))
                .as("only topics alice may describe but not delete").containsExactlyInAnyOrder("seen-gone", "seen-here");

        AdminSplit split = access.split(request, ALICE, Map.of(), Set.of("seen-gone"));

        assertThat(((DeleteTopicsRequestData) split.allowedPart()).topicNames()).containsExactly("orders-eu");
        DeleteTopicsResponseData broker = new DeleteTopicsResponseData();
        broker.responses().add(new DeleteTopicsResponseData.DeletableTopicResult().setName("orders-eu"));
        DeleteTopicsResponseData read = asClientReads(ApiKeys.DELETE_TOPICS, (short) 5, split.answer(broker));
        assertThat(read.responses()).extracting(r -> r.name(), r -> r.errorCode()).containsExactly(
                tuple("seen-gone", Errors.UNKNOWN_TOPIC_OR_PARTITION.code()),
                tuple("payments", Errors.TOPIC_AUTHORIZATION_FAILED.code()),
                tuple("orders-eu", Errors.NONE.code()),
                tuple("seen-here", Errors.TOPIC_AUTHORIZATION_FAILED.code()));
    }

    @Test
    void deleteTopicsByIdTellsTheNameOnlyOfTopicsThePrincipalMayDescribeAndUnknownIdsAreUnknown() {
        Uuid deletable = Uuid.randomUuid();
        Uuid seen = Uuid.randomUuid();
        Uuid hidden = Uuid.randomUuid();
        Uuid unknown = Uuid.randomUuid();
        DeleteTopicsRequestData request = new DeleteTopicsRequestData().setTopics(List.of(
                new DeleteTopicsRequestData.DeleteTopicState().setTopicId(hidden),
                new DeleteTopicsRequestData.DeleteTopicState().setTopicId(deletable),
                new DeleteTopicsRequestData.DeleteTopicState().setTopicId(seen),
                new DeleteTopicsRequestData.DeleteTopicState().setName("orders-by-name"),
                new DeleteTopicsRequestData.DeleteTopicState().setTopicId(unknown),
                new DeleteTopicsRequestData.DeleteTopicState()));
        assertThat(AdminAccess.topicIds(request)).containsExactlyInAnyOrder(deletable, seen, hidden, unknown);
        AdminSplit split = access.split(request, ALICE, Map.of(deletable, "orders-eu", seen, "seen-x",
                hidden, "secret"));

        assertThat(((DeleteTopicsRequestData) split.allowedPart()).topics())
                .extracting(t -> t.topicId(), t -> t.name())
                .containsExactly(tuple(deletable, null),
                        tuple(Uuid.ZERO_UUID, "orders-by-name"));
        DeleteTopicsResponseData broker = new DeleteTopicsResponseData();
        broker.responses().add(new DeleteTopicsResponseData.DeletableTopicResult().setName("orders-by-name")
                .setTopicId(Uuid.randomUuid()));
        broker.responses().add(new DeleteTopicsResponseData.DeletableTopicResult().setName("orders-eu")
                .setTopicId(deletable));
        ApiMessage merged = split.answer(broker);

        for (short version = 6; version <= ApiKeys.DELETE_TOPICS.latestVersion(); version++) {
            DeleteTopicsResponseData read = asClientReads(ApiKeys.DELETE_TOPICS, version, merged);
            assertThat(read.responses()).as("v%d", version)
                    .extracting(r -> r.topicId(), r -> r.name(), r -> Errors.forCode(r.errorCode()))
                    .containsExactly(
                            tuple(hidden, null, Errors.TOPIC_AUTHORIZATION_FAILED),
                            tuple(deletable, "orders-eu", Errors.NONE),
                            tuple(seen, "seen-x", Errors.TOPIC_AUTHORIZATION_FAILED),
                            tuple(read.responses().find("orders-by-name").topicId(),
                                    "orders-by-name", Errors.NONE),
                            tuple(unknown, null, Errors.UNKNOWN_TOPIC_ID),
                            tuple(Uuid.ZERO_UUID, null, Errors.INVALID_REQUEST));
            assertThat(read.responses()).extracting(r -> String.valueOf(r.errorMessage()))
                    .noneMatch(message -> message.contains("secret"));
        }
    }

    @Test
    void describeConfigsChecksTopicsOnTheTopicGroupsOnTheGroupAndBrokersOnTheCluster() {
        DescribeConfigsRequestData request = new DescribeConfigsRequestData();
        addDescribe(request, TOPIC, "orders-eu");
        addDescribe(request, BROKER, "");
        addDescribe(request, TOPIC, "payments");
        addDescribe(request, GROUP, "billing-1");
        addDescribe(request, GROUP, "other");
        AdminSplit split = access.split(request, ALICE, Map.of());

        assertThat(split.noneAllowed()).as("alice has ALTER_CONFIGS (implying DESCRIBE_CONFIGS) on orders*").isFalse();
        assertThat(((DescribeConfigsRequestData) split.allowedPart()).resources())
                .extracting(r -> r.resourceName()).containsExactly("orders-eu", "billing-1");
        DescribeConfigsResponseData broker = new DescribeConfigsResponseData();
        broker.results().add(new DescribeConfigsResponseData.DescribeConfigsResult().setResourceType((byte) GROUP)
                .setResourceName("billing-1"));
        broker.results().add(new DescribeConfigsResponseData.DescribeConfigsResult().setResourceType((byte) TOPIC)
                .setResourceName("orders-eu").setConfigs(List.of(
                        new DescribeConfigsResponseData.DescribeConfigsResourceResult().setName("retention.ms")
                                .setValue("1000"))));
        ApiMessage merged = split.answer(broker);

        for (short version = ApiKeys.DESCRIBE_CONFIGS.oldestVersion();
             version <= ApiKeys.DESCRIBE_CONFIGS.latestVersion(); version++) {
            DescribeConfigsResponseData read = asClientReads(ApiKeys.DESCRIBE_CONFIGS, version, merged);
            assertThat(read.results()).as("v%d", version)
                    .extracting(r -> r.resourceName(), r -> Errors.forCode(r.errorCode()))
                    .containsExactly(tuple("orders-eu", Errors.NONE),
                            tuple("", Errors.CLUSTER_AUTHORIZATION_FAILED),
                            tuple("payments", Errors.TOPIC_AUTHORIZATION_FAILED),
                            tuple("billing-1", Errors.NONE),
                            tuple("other", Errors.GROUP_AUTHORIZATION_FAILED));
            assertThat(read.results().get(0).configs()).hasSize(1);
        }
        assertThat(access.split(describeOnly(BROKER, ""), OPS, Map.of()).allAllowed()).isTrue();
    }

    private static void addDescribe(DescribeConfigsRequestData request, short type, String name) {
        request.resources().add(new DescribeConfigsRequestData.DescribeConfigsResource().setResourceType((byte) type)
                .setResourceName(name));
    }

    private static DescribeConfigsRequestData describeOnly(short type, String name) {
        DescribeConfigsRequestData request = new DescribeConfigsRequestData();
        addDescribe(request, type, name);
        return request;
    }

    @Test
    void alterConfigsAndIncrementalAlterConfigsNeedAlterConfigsPerResource() {
        AlterConfigsRequestData alter = new AlterConfigsRequestData();
        IncrementalAlterConfigsRequestData incremental = new IncrementalAlterConfigsRequestData();
        for (String name : List.of("payments", "orders-eu")) {
            alter.resources().add(new AlterConfigsRequestData.AlterConfigsResource().setResourceType((byte) TOPIC)
                    .setResourceName(name));
            incremental.resources().add(new IncrementalAlterConfigsRequestData.AlterConfigsResource()
                    .setResourceType((byte) TOPIC).setResourceName(name));
        }
        alter.resources().add(new AlterConfigsRequestData.AlterConfigsResource().setResourceType((byte) BROKER)
                .setResourceName(""));
        incremental.resources().add(new IncrementalAlterConfigsRequestData.AlterConfigsResource()
                .setResourceType((byte) BROKER).setResourceName(""));

        AdminSplit alterSplit = access.split(alter, ALICE, Map.of());
        AdminSplit incrementalSplit = access.split(incremental, ALICE, Map.of());
        assertThat(((AlterConfigsRequestData) alterSplit.allowedPart()).resources()).extracting(r -> r.resourceName())
                .containsExactly("orders-eu");
        assertThat(((IncrementalAlterConfigsRequestData) incrementalSplit.allowedPart()).resources())
                .extracting(r -> r.resourceName()).containsExactly("orders-eu");

        AlterConfigsResponseData alterAnswer = new AlterConfigsResponseData();
        alterAnswer.responses().add(new AlterConfigsResponseData.AlterConfigsResourceResponse()
                .setResourceType((byte) TOPIC).setResourceName("orders-eu"));
        IncrementalAlterConfigsResponseData incrementalAnswer = new IncrementalAlterConfigsResponseData();
        incrementalAnswer.responses().add(new IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse()
                .setResourceType((byte) TOPIC).setResourceName("orders-eu"));
        List<Errors> expected = List.of(Errors.TOPIC_AUTHORIZATION_FAILED, Errors.NONE,
                Errors.CLUSTER_AUTHORIZATION_FAILED);
        ApiMessage alterMerged = alterSplit.answer(alterAnswer);
        ApiMessage incrementalMerged = incrementalSplit.answer(incrementalAnswer);
        for (short version = ApiKeys.ALTER_CONFIGS.oldestVersion(); version <= ApiKeys.ALTER_CONFIGS.latestVersion();
             version++) {
            AlterConfigsResponseData read = asClientReads(ApiKeys.ALTER_CONFIGS, version, alterMerged);
            assertThat(read.responses()).as("v%d", version).extracting(errorOf(r -> r.errorCode()))
                    .containsExactlyElementsOf(expected);
        }
        for (short version = ApiKeys.INCREMENTAL_ALTER_CONFIGS.oldestVersion();
             version <= ApiKeys.INCREMENTAL_ALTER_CONFIGS.latestVersion(); version++) {
            IncrementalAlterConfigsResponseData read = asClientReads(ApiKeys.INCREMENTAL_ALTER_CONFIGS, version,
                    incrementalMerged);
            assertThat(read.responses()).as("v%d", version).extracting(errorOf(r -> r.errorCode()))
                    .containsExactlyElementsOf(expected);
            assertThat(read.responses().get(2).errorMessage())
                    .isEqualTo("Not authorized to ALTER_CONFIGS the cluster, which BROKER configs need");
        }
    }

    private static <T> Function<T, Errors> errorOf(Function<T, Short> code) {
        return result -> Errors.forCode(code.apply(result));
    }
}
