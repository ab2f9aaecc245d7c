package io.leasehold.proxy.access;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.leasehold.proxy.authorization.Authorizer;
import io.leasehold.proxy.testing.YamlAcls;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopic;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopics;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseGroup;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartition;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartitions;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseTopic;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseTopics;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.junit.jupiter.api.Test;

/**
 * OffsetFetch answers restricted to the topics the principal may describe, in the single-group
 * shape (v0-7) and the several-groups shape (v8+, topics by name or, from v10, by id).
 */
class CommittedOffsetAccessTest {
    private static final KafkaPrincipal ALICE = new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "alice");
    private static final Uuid SEEN_ID = Uuid.randomUuid();
    private static final Uuid HIDDEN_ID = Uuid.randomUuid();
    private static final Uuid UNKNOWN_ID = Uuid.randomUuid();
    private static final Map<Uuid, String> NAMES = Map.of(SEEN_ID, "seen-a", HIDDEN_ID, "hidden-b");

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final CommittedOffsetAccess access = new CommittedOffsetAccess(YamlAcls.authorizer("""
            acls:
              - {principal: "User:alice", resourceType: TOPIC, patternType: PREFIXED, name: seen-,
                 operations: [DESCRIBE], permission: ALLOW}
              - {principal: "User:alice", resourceType: GROUP, patternType: LITERAL, name: g,
                 operations: [ALL], permission: ALLOW}
            """, registry));

    @Test
    void aNamedTopicThePrincipalMayNotDescribeIsAnsweredTopicAuthorizationFailedOnEachPartition() {
        OffsetFetchRequestData request = new OffsetFetchRequestData().setGroupId("g").setTopics(List.of(
                new OffsetFetchRequestTopic().setName("seen-a").setPartitionIndexes(List.of(0, 1)),
                new OffsetFetchRequestTopic().setName("hidden-b").setPartitionIndexes(List.of(0, 1))));
        OffsetFetchResponseData answer = new OffsetFetchResponseData().setTopics(List.of(
                singleGroupTopic("seen-a"), singleGroupTopic("hidden-b")));

        access.visible(request, answer, ALICE, Map.of());

        assertThat(answer.topics()).flatExtracting(t -> t.partitions().stream()
                        .map(p -> tuple(t.name(), p.partitionIndex(), p.committedOffset(), p.errorCode())).toList())
                .containsExactly(
                        tuple("seen-a", 0, 40L, Errors.NONE.code()),
                        tuple("seen-a", 1, 41L, Errors.NONE.code()),
                        tuple("hidden-b", 0, -1L, Errors.TOPIC_AUTHORIZATION_FAILED.code()),
                        tuple("hidden-b", 1, -1L, Errors.TOPIC_AUTHORIZATION_FAILED.code()));
        assertThat(answer.topics().get(1).partitions()).allMatch(p -> p.metadata().isEmpty()
                && p.committedLeaderEpoch() == -1);
        assertThat(registry.find("leasehold.authorization.denials").counters()).isNotEmpty();
    }

    @Test
    void anAnswerAboutAllOfAGroupsTopicsLeavesOutTheTopicsThePrincipalMayNotDescribe() {
        OffsetFetchRequestData request = new OffsetFetchRequestData().setGroupId("g").setTopics(null);
        OffsetFetchResponseData answer = new OffsetFetchResponseData().setTopics(List.of(
                singleGroupTopic("hidden-b"), singleGroupTopic("seen-a"), singleGroupTopic("hidden-c")));

        access.visible(request, answer, ALICE, Map.of());

        assertThat(answer.topics()).extracting(OffsetFetchResponseTopic::name).containsExactly("seen-a");
    }

    @Test
    void partitionsTheCoordinatorAlreadyAnsweredWithAnErrorKeepIt() {
        OffsetFetchRequestData request = new OffsetFetchRequestData().setGroupId("g").setTopics(List.of(
                new OffsetFetchRequestTopic().setName("hidden-b").setPartitionIndexes(List.of(0))));
        OffsetFetchResponseData answer = new OffsetFetchResponseData().setTopics(List.of(
                new OffsetFetchResponseTopic().setName("hidden-b").setPartitions(List.of(
                        new OffsetFetchResponsePartition().setPartitionIndex(0).setCommittedOffset(-1)
                                .setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code())))));

        access.visible(request, answer, ALICE, Map.of());

        assertThat(answer.topics().get(0).partitions().get(0).errorCode())
                .isEqualTo(Errors.GROUP_AUTHORIZATION_FAILED.code());
    }

    @Test
    void eachGroupOfASeveralGroupsAnswerIsRestrictedByWhatItsRequestAsked() {
        OffsetFetchRequestData request = new OffsetFetchRequestData().setGroups(List.of(
                new OffsetFetchRequestGroup().setGroupId("named").setTopics(List.of(
                        new OffsetFetchRequestTopics().setName("seen-a").setPartitionIndexes(List.of(0)),
                        new OffsetFetchRequestTopics().setName("hidden-b").setPartitionIndexes(List.of(0)))),
                new OffsetFetchRequestGroup().setGroupId("all").setTopics(null)));
        OffsetFetchResponseData answer = new OffsetFetchResponseData().setGroups(List.of(
                new OffsetFetchResponseGroup().setGroupId("named").setTopics(List.of(
                        groupTopic("seen-a", Uuid.ZERO_UUID), groupTopic("hidden-b", Uuid.ZERO_UUID))),
                new OffsetFetchResponseGroup().setGroupId("all").setTopics(List.of(
                        groupTopic("hidden-b", Uuid.ZERO_UUID), groupTopic("seen-a", Uuid.ZERO_UUID)))));

        access.visible(request, answer, ALICE, Map.of());

        assertThat(answer.groups().get(0).topics()).extracting(OffsetFetchResponseTopics::name,
                        t -> t.partitions().get(0).errorCode(), t -> t.partitions().get(0).committedOffset())
                .containsExactly(tuple("seen-a", Errors.NONE.code(), 40L),
                        tuple("hidden-b", Errors.TOPIC_AUTHORIZATION_FAILED.code(), -1L));
        assertThat(answer.groups().get(1).topics()).extracting(OffsetFetchResponseTopics::name)
                .containsExactly("seen-a");
    }

    @Test
    void aTopicLeftOutOfOneGroupsAnswerIsStillCountedAsADenialWhereAnotherGroupNamesIt() {
        OffsetFetchRequestData request = new OffsetFetchRequestData().setGroups(List.of(
                new OffsetFetchRequestGroup().setGroupId("all").setTopics(null),
                new OffsetFetchRequestGroup().setGroupId("named").setTopics(List.of(
                        new OffsetFetchRequestTopics().setName("hidden-b").setPartitionIndexes(List.of(0))))));
        OffsetFetchResponseData answer = new OffsetFetchResponseData().setGroups(List.of(
                new OffsetFetchResponseGroup().setGroupId("all").setTopics(List.of(
                        groupTopic("hidden-b", Uuid.ZERO_UUID))),
                new OffsetFetchResponseGroup().setGroupId("named").setTopics(List.of(
                        groupTopic("hidden-b", Uuid.ZERO_UUID)))));

        access.visible(request, answer, ALICE, Map.of());

        assertThat(answer.groups().get(0).topics()).isEmpty();
        assertThat(answer.groups().get(1).topics().get(0).partitions().get(0).errorCode())
                .isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code());
        assertThat(registry.find("leasehold.authorization.denials").counters())
                .extracting(c -> c.count()).containsExactly(1.0);
    }

    @Test
    void topicIdsAreDecidedOnTheirNamesAndAnIdNobodyCanNameIsUnknown() {
        OffsetFetchRequestData request = new OffsetFetchRequestData().setGroups(List.of(
                new OffsetFetchRequestGroup().setGroupId("named").setTopics(List.of(
                        new OffsetFetchRequestTopics().setTopicId(SEEN_ID).setPartitionIndexes(List.of(0)),
                        new OffsetFetchRequestTopics().setTopicId(HIDDEN_ID).setPartitionIndexes(List.of(0)),
                        new OffsetFetchRequestTopics().setTopicId(UNKNOWN_ID).setPartitionIndexes(List.of(0)))),
                new OffsetFetchRequestGroup().setGroupId("all").setTopics(null)));
        OffsetFetchResponseData answer = new OffsetFetchResponseData().setGroups(List.of(
                new OffsetFetchResponseGroup().setGroupId("named").setTopics(List.of(
                        groupTopic("", SEEN_ID), groupTopic("", HIDDEN_ID), groupTopic("", UNKNOWN_ID))),
                new OffsetFetchResponseGroup().setGroupId("all").setTopics(List.of(
                        groupTopic("", HIDDEN_ID), groupTopic("", SEEN_ID), groupTopic("", UNKNOWN_ID)))));
        assertThat(CommittedOffsetAccess.topicIds(answer)).containsExactlyInAnyOrder(SEEN_ID, HIDDEN_ID, UNKNOWN_ID);

        access.visible(request, answer, ALICE, NAMES);

        assertThat(answer.groups().get(0).topics()).extracting(OffsetFetchResponseTopics::topicId,
                        t -> t.partitions().get(0).errorCode())
                .containsExactly(tuple(SEEN_ID, Errors.NONE.code()),
                        tuple(HIDDEN_ID, Errors.TOPIC_AUTHORIZATION_FAILED.code()),
                        tuple(UNKNOWN_ID, Errors.UNKNOWN_TOPIC_ID.code()));
        assertThat(answer.groups().get(1).topics()).extracting(OffsetFetchResponseTopics::topicId)
                .containsExactly(SEEN_ID);
    }

    @Test
    void withoutAuthorizationTheAnswerIsLeftAlone() {
        OffsetFetchRequestData request = new OffsetFetchRequestData().setGroupId("g").setTopics(null);
        OffsetFetchResponseData answer = new OffsetFetchResponseData().setTopics(List.of(
                singleGroupTopic("hidden-b")));

        new CommittedOffsetAccess(Authorizer.open()).visible(request, answer, ALICE, Map.of());

        assertThat(answer.topics()).extracting(OffsetFetchResponseTopic::name).containsExactly("hidden-b");
    }

    private static OffsetFetchResponseTopic singleGroupTopic(String name) {
        return new OffsetFetchResponseTopic().setName(name).setPartitions(List.of(
                new OffsetFetchResponsePartition().setPartitionIndex(0).setCommittedOffset(40)
                        .setCommittedLeaderEpoch(3).setMetadata("m"),
                new OffsetFetchResponsePartition().setPartitionIndex(1).setCommittedOffset(41)
                        .setCommittedLeaderEpoch(3).setMetadata("m")));
    }

    private static OffsetFetchResponseTopics groupTopic(String name, Uuid id) {
        return new OffsetFetchResponseTopics().setName(name).setTopicId(id).setPartitions(List.of(
                new OffsetFetchResponsePartitions().setPartitionIndex(0).setCommittedOffset(40)
                        .setCommittedLeaderEpoch(3).setMetadata("m")));
    }
}
