package io.leasehold.proxy.access;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.proxy.authorization.Authorizer;
import io.leasehold.proxy.testing.YamlAcls;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.junit.jupiter.api.Test;

/** What each whole request, metadata answer and group listing needs from the ACLs, as Kafka checks them (admin APIs per resource: {@link AdminAccessTest}). */
class RequestAccessTest {
    private static final KafkaPrincipal ALICE = new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "alice");
    private static final KafkaPrincipal OPS = new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "ops");

    private final Authorizer authorizer = YamlAcls.authorizer("""
            acls:
              - {principal: "User:alice", resourceType: TOPIC, patternType: PREFIXED, name: orders,
                 operations: [WRITE, READ, CREATE, DESCRIBE_CONFIGS], permission: ALLOW}
              - {principal: "User:alice", resourceType: GROUP, patternType: PREFIXED, name: billing-,
                 operations: [READ], permission: ALLOW}
              - {principal: "User:ops", resourceType: CLUSTER, operations: [CREATE, DESCRIBE_CONFIGS, DESCRIBE],
                 permission: ALLOW}
              - {principal: "User:ops", resourceType: TOPIC, name: "*", operations: [DELETE], permission: ALLOW}
            """, new SimpleMeterRegistry());
    private final RequestAccess access = new RequestAccess(authorizer);

    @Test
    void groupRequestsNeedReadOnTheGroupAndCommitsLeaveTheirTopicsToTheSplit() {
        assertThat(access.refusal(ApiKeys.JOIN_GROUP, new JoinGroupRequestData().setGroupId("billing-1"), ALICE))
                .isNull();
        assertThat(access.refusal(ApiKeys.JOIN_GROUP, new JoinGroupRequestData().setGroupId("other"), ALICE))
                .isInstanceOf(GroupAuthorizationException.class);
        OffsetCommitRequestData commit = new OffsetCommitRequestData().setGroupId("billing-1");
        commit.topics().add(new OffsetCommitRequestData.OffsetCommitRequestTopic().setName("orders-eu"));
        assertThat(access.refusal(ApiKeys.OFFSET_COMMIT, commit, ALICE)).isNull();
        commit.topics().add(new OffsetCommitRequestData.OffsetCommitRequestTopic().setName("payments"));
        assertThat(access.refusal(ApiKeys.OFFSET_COMMIT, commit, ALICE)).as("topics are decided per topic later")
                .isNull();
        assertThat(access.refusal(ApiKeys.OFFSET_COMMIT, commit.duplicate().setGroupId("other"), ALICE))
                .isInstanceOf(GroupAuthorizationException.class);
    }

    @Test
    void aConsumerGroupHeartbeatNeedsDescribeOnEverySubscribedTopic() {
        ConsumerGroupHeartbeatRequestData heartbeat = new ConsumerGroupHeartbeatRequestData().setGroupId("billing-1")
                .setSubscribedTopicNames(List.of("orders-eu", "orders-us"));
        assertThat(access.refusal(ApiKeys.CONSUMER_GROUP_HEARTBEAT, heartbeat, ALICE)).isNull();
        assertThat(access.refusal(ApiKeys.CONSUMER_GROUP_HEARTBEAT, heartbeat.duplicate().setSubscribedTopicNames(null),
                ALICE)).as("an unchanged subscription names no topics").isNull();

        ApiException refusal = access.refusal(ApiKeys.CONSUMER_GROUP_HEARTBEAT, heartbeat.duplicate()
                .setSubscribedTopicNames(List.of("orders-eu", "payments")), ALICE);
        assertThat(refusal).isInstanceOf(TopicAuthorizationException.class);
        assertThat(((TopicAuthorizationException) refusal).unauthorizedTopics()).containsExactly("payments");
        assertThat(access.refusal(ApiKeys.CONSUMER_GROUP_HEARTBEAT, heartbeat.duplicate().setGroupId("other"), ALICE))
                .as("the group first, as Kafka").isInstanceOf(GroupAuthorizationException.class);
    }

    @Test
    void aConsumerGroupHeartbeatSubscribingByRegexIsRefusedSinceTheBrokerWouldResolveItAsTheProxy() {
        ConsumerGroupHeartbeatRequestData heartbeat = new ConsumerGroupHeartbeatRequestData().setGroupId("billing-1")
                .setSubscribedTopicRegex("orders-.*");

        assertThat(access.refusal(ApiKeys.CONSUMER_GROUP_HEARTBEAT, heartbeat, ALICE))
                .isInstanceOf(TopicAuthorizationException.class).hasMessageContaining("regular expression");
        assertThat(access.refusal(ApiKeys.CONSUMER_GROUP_HEARTBEAT, heartbeat.duplicate().setSubscribedTopicRegex(""),
                ALICE)).as("an empty regex clears the subscription").isNull();
    }

    @Test
    void idempotentProducersNeedIdempotentWriteOrWriteOnSomeTopic() {
        InitProducerIdRequestData init = new InitProducerIdRequestData().setTransactionalId(null);

        assertThat(access.refusal(ApiKeys.INIT_PRODUCER_ID, init, ALICE)).as("WRITE on orders*").isNull();
        assertThat(access.refusal(ApiKeys.INIT_PRODUCER_ID, init, OPS))
                .isInstanceOf(ClusterAuthorizationException.class);
    }

    @Test
    void metadataShowsDescribableTopicsRefusesNamedOnesAndCreatesOnlyWithCreate() {
        MetadataAccess metadata = new MetadataAccess(authorizer);
        MetadataResponseData shared = new MetadataResponseData();
        for (String name : List.of("orders-eu", "payments")) {
            shared.topics().add(new MetadataResponseData.MetadataResponseTopic().setName(name));
        }
        MetadataAccess.Question all = metadata.beforeForwarding(new MetadataRequestData().setTopics(null),
                (short) 12, ALICE);
        MetadataAccess.Question named = metadata.beforeForwarding(new MetadataRequestData()
                .setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName("payments"))), (short) 12,
                ALICE);

        assertThat(metadata.visible(all, shared, ALICE).topics()).extracting(t -> t.name())
                .containsExactly("orders-eu");
        assertThat(metadata.visible(named, shared, ALICE).topics().find("payments").errorCode())
                .isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code());
        assertThat(shared.topics()).as("the shared answer is left as it is").hasSize(2);

        MetadataRequestData create = new MetadataRequestData().setAllowAutoTopicCreation(true)
                .setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName("orders-new")));
        metadata.beforeForwarding(create, (short) 12, ALICE);
        assertThat(create.allowAutoTopicCreation()).isTrue();
        MetadataRequestData notAllowed = new MetadataRequestData().setAllowAutoTopicCreation(true)
                .setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName("payments")));
        metadata.beforeForwarding(notAllowed, (short) 12, ALICE);
        assertThat(notAllowed.allowAutoTopicCreation()).isFalse();
    }

    @Test
    void listGroupsShowsOnlyDescribableGroupsUnlessTheClusterMayBeDescribed() {
        ListingAccess listing = new ListingAccess(authorizer);
        ListGroupsResponseData answer = new ListGroupsResponseData().setGroups(new ArrayList<>(List.of(
                new ListGroupsResponseData.ListedGroup().setGroupId("billing-1"),
                new ListGroupsResponseData.ListedGroup().setGroupId("other"))));

        assertThat(listing.groups(answer.duplicate(), OPS).groups()).hasSize(2);
        assertThat(listing.groups(answer, ALICE).groups()).extracting(g -> g.groupId()).containsExactly("billing-1");
    }
}
