package io.leasehold.proxy.access;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.proxy.authorization.Authorizer;
import io.leasehold.proxy.testing.YamlAcls;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData.Assignment;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData.DescribedGroup;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData.Member;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData.TopicPartitions;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.junit.jupiter.api.Test;

/** {@link DescribedGroupAccess}: which described consumer groups a principal may see. */
class DescribedGroupAccessTest {
    private static final KafkaPrincipal ALICE = new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "alice");

    private final Authorizer authorizer = YamlAcls.authorizer("""
            acls:
              - {principal: "User:alice", resourceType: TOPIC, patternType: PREFIXED, name: orders,
                 operations: [DESCRIBE], permission: ALLOW}
              - {principal: "User:alice", resourceType: GROUP, name: "*", operations: [DESCRIBE], permission: ALLOW}
            """, new SimpleMeterRegistry());
    private final DescribedGroupAccess access = new DescribedGroupAccess(authorizer);

    @Test
    void aGroupAssigningAHiddenTopicIsAnsweredTopicAuthorizationFailedWithoutMembers() {
        ConsumerGroupDescribeResponseData answer = new ConsumerGroupDescribeResponseData().setGroups(List.of(
                group("visible", member(List.of("orders-eu"), List.of("orders-us"))),
                group("assigned-hidden", member(List.of("orders-eu", "payments"), List.of())),
                group("about-to-be-assigned-hidden", member(List.of(), List.of("payments"))),
                new DescribedGroup().setGroupId("missing").setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())));

        List<DescribedGroup> groups = access.visible(answer, ALICE).groups();

        assertThat(groups).extracting(DescribedGroup::groupId)
                .containsExactly("visible", "assigned-hidden", "about-to-be-assigned-hidden", "missing");
        assertThat(groups.get(0).errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(groups.get(0).members()).hasSize(1);
        for (DescribedGroup refused : groups.subList(1, 3)) {
            assertThat(refused.errorCode()).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code());
            assertThat(refused.members()).isEmpty();
            assertThat(refused.toString()).doesNotContain("payments");
        }
        assertThat(groups.get(3).errorCode()).isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
    }

    private static DescribedGroup group(String id, Member member) {
        return new DescribedGroup().setGroupId(id).setGroupState("Stable").setMembers(List.of(member));
    }

    private static Member member(List<String> assigned, List<String> target) {
        return new Member().setMemberId("m").setSubscribedTopicNames(List.of("orders-eu"))
                .setAssignment(new Assignment().setTopicPartitions(partitions(assigned)))
                .setTargetAssignment(new Assignment().setTopicPartitions(partitions(target)));
    }

    private static List<TopicPartitions> partitions(List<String> topics) {
        return topics.stream().map(t -> new TopicPartitions().setTopicName(t).setPartitions(List.of(0))).toList();
    }
}
