package io.leasehold.proxy.access;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.proxy.authorization.Authorizer;
import io.leasehold.proxy.dispatch.RoutePolicy;
import io.leasehold.proxy.testing.YamlAcls;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.junit.jupiter.api.Test;

/**
 * What each whole request, metadata answer and group listing needs from the ACLs, as Kafka checks
 * them (admin APIs per resource: {@code AdminAccessTest}), and that every API the proxy serves
 * has its rule.
 */
class AccessRulesTest {
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
    private final AccessRules rules = new AccessRules();

    @Test
    void everyApiTheProxyAdvertisesHasAnAccessRuleAndNoOtherHasOne() {
        assertThat(rules.apis()).containsExactlyInAnyOrderElementsOf(new RoutePolicy().served());
    }

    @Test
    void groupRequestsNeedReadOnTheGroupAndCommitsLeaveTheirTopicsToTheSplit() {
        assertThat(refusal(ApiKeys.JOIN_GROUP, new JoinGroupRequestData().setGroupId("billing-1"), ALICE))
                .isNull();
        assertThat(refusal(ApiKeys.JOIN_GROUP, new JoinGroupRequestData().setGroupId("other"), ALICE))
                .isInstanceOf(GroupAuthorizationException.class);
        OffsetCommitRequestData commit = new OffsetCommitRequestData().setGroupId("billing-1");
        commit.topics().add(new OffsetCommitRequestData.OffsetCommitRequestTopic().setName("orders-eu"));
        assertThat(refusal(ApiKeys.OFFSET_COMMIT, commit, ALICE)).isNull();
        commit.topics().add(new OffsetCommitRequestData.OffsetCommitRequestTopic().setName("payments"));
        assertThat(refusal(ApiKeys.OFFSET_COMMIT, commit, ALICE)).as("topics are decided per topic later")
                .isNull();
        assertThat(refusal(ApiKeys.OFFSET_COMMIT, commit.duplicate().setGroupId("other"), ALICE))
                .isInstanceOf(GroupAuthorizationException.class);
    }

    @Test
    void aConsumerGroupHeartbeatNeedsDescribeOnEverySubscribedTopic() {
        ConsumerGroupHeartbeatRequestData heartbeat = new ConsumerGroupHeartbeatRequestData().setGroupId("billing-1")
                .setSubscribedTopicNames(List.of("orders-eu", "orders-us"));
        assertThat(refusal(ApiKeys.CONSUMER_GROUP_HEARTBEAT, heartbeat, ALICE)).isNull();
        assertThat(refusal(ApiKeys.CONSUMER_GROUP_HEARTBEAT, heartbeat.duplicate().setSubscribedTopicNames(null),
                ALICE)).as("an unchanged subscription names no topics").isNull();

        ApiException refusal = refusal(ApiKeys.CONSUMER_GROUP_HEARTBEAT, heartbeat.duplicate()
                .setSubscribedTopicNames(List.of("orders-eu", "payments")), ALICE);
        assertThat(refusal).isInstanceOf(TopicAuthorizationException.class);
        assertThat(((TopicAuthorizationException) refusal).unauthorizedTopics()).containsExactly("payments");
        assertThat(refusal(ApiKeys.CONSUMER_GROUP_HEARTBEAT, heartbeat.duplicate().setGroupId("other"), ALICE))
                .as("the group first, as Kafka").isInstanceOf(GroupAuthorizationException.class);
    }

    @Test
    void aConsumerGroupHeartbeatSubscribingByRegexIsRefusedSinceTheBrokerWouldResolveItAsTheProxy() {
        ConsumerGroupHeartbeatRequestData heartbeat = new ConsumerGroupHeartbeatRequestData().setGroupId("billing-1")
                .setSubscribedTopicRegex("orders-.*");

        assertThat(refusal(ApiKeys.CONSUMER_GROUP_HEARTBEAT, heartbeat, ALICE))
                .isInstanceOf(TopicAuthorizationException.class).hasMessageContaining("regular expression");
        assertThat(refusal(ApiKeys.CONSUMER_GROUP_HEARTBEAT, heartbeat.duplicate().setSubscribedTopicRegex(""),
                ALICE)).as("an empty regex clears the subscription").isNull();
    }

    @Test
    void idempotentProducersNeedIdempotentWriteOrWriteOnSomeTopic() {
        InitProducerIdRequestData init = new InitProducerIdRequestData().setTransactionalId(null);

        assertThat(refusal(ApiKeys.INIT_PRODUCER_ID, init, ALICE)).as("WRITE on orders*").isNull();
        assertThat(refusal(ApiKeys.INIT_PRODUCER_ID, init, OPS))
                .isInstanceOf(ClusterAuthorizationException.class);
    }

    @Test
    void metadataShowsDescribableTopicsRefusesNamedOnesAndCreatesOnlyWithCreate() {
        MetadataResponseData shared = new MetadataResponseData();
        for (String name : List.of("orders-eu", "payments")) {
            shared.topics().add(new MetadataResponseData.MetadataResponseTopic().setName(name));
        }
        AnswerFilter all = metadata(new MetadataRequestData().setTopics(null));
        AnswerFilter named = metadata(new MetadataRequestData()
                .setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName("payments"))));

        assertThat(((MetadataResponseData) all.visible(shared, Map.of())).topics()).extracting(t -> t.name())
                .containsExactly("orders-eu");
        assertThat(((MetadataResponseData) named.visible(shared, Map.of())).topics().find("payments").errorCode())
                .isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code());
        assertThat(shared.topics()).as("the shared answer is left as it is").hasSize(2);

        MetadataRequestData create = new MetadataRequestData().setAllowAutoTopicCreation(true)
                .setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName("orders-new")));
        metadata(create);
        assertThat(create.allowAutoTopicCreation()).isTrue();
        MetadataRequestData notAllowed = new MetadataRequestData().setAllowAutoTopicCreation(true)
                .setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName("payments")));
        metadata(notAllowed);
        assertThat(notAllowed.allowAutoTopicCreation()).isFalse();
    }

    @Test
    void listGroupsShowsOnlyDescribableGroupsUnlessTheClusterMayBeDescribed() {
        ListGroupsResponseData answer = new ListGroupsResponseData().setGroups(new ArrayList<>(List.of(
                new ListGroupsResponseData.ListedGroup().setGroupId("billing-1"),
                new ListGroupsResponseData.ListedGroup().setGroupId("other"))));

        assertThat(listed(answer.duplicate(), OPS).groups()).hasSize(2);
        assertThat(listed(answer, ALICE).groups()).extracting(g -> g.groupId()).containsExactly("billing-1");
    }

    private ApiException refusal(ApiKeys api, ApiMessage body, KafkaPrincipal principal) {
        return rules.of(api).refusal(authorizer, body, principal);
    }

    private AnswerFilter metadata(MetadataRequestData request) {
        return rules.of(ApiKeys.METADATA).answers(authorizer, request, (short) 12, ALICE);
    }

    private ListGroupsResponseData listed(ListGroupsResponseData answer, KafkaPrincipal principal) {
        return (ListGroupsResponseData) rules.of(ApiKeys.LIST_GROUPS)
                .answers(authorizer, new ListGroupsRequestData(), (short) 4, principal).visible(answer, Map.of());
    }
}
