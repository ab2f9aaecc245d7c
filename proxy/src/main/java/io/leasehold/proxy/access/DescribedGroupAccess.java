package io.leasehold.proxy.access;

import io.leasehold.proxy.authorization.Authorizer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData.DescribedGroup;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData.Member;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData.TopicPartitions;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * What a ConsumerGroupDescribe answer may show its principal once the group itself is allowed, as
 * Kafka 4 decides it: a group whose members are assigned, or are about to be assigned (target
 * assignment), a topic the principal may not DESCRIBE is answered TOPIC_AUTHORIZATION_FAILED
 * instead, with no members, so neither the topic's name nor who reads it shows. Groups answered
 * with an error keep it.
 */
public final class DescribedGroupAccess {
    private final Authorizer authorizer;

    public DescribedGroupAccess(Authorizer authorizer) {
        this.authorizer = authorizer;
    }

    /** Restricts {@code answer} (in place) to what {@code principal} may see, and returns it. */
    public ConsumerGroupDescribeResponseData visible(ConsumerGroupDescribeResponseData answer,
                                                     KafkaPrincipal principal) {
        if (!authorizer.enabled()) {
            return answer;
        }
        Map<String, Boolean> describable = new HashMap<>();
        List<DescribedGroup> groups = new ArrayList<>(answer.groups().size());
        for (DescribedGroup group : answer.groups()) {
            boolean hides = group.errorCode() == Errors.NONE.code() && assignedTopics(group).anyMatch(topic ->
                    !describable.computeIfAbsent(topic, t -> authorizer.allows(principal, AclOperation.DESCRIBE,
                            ResourceType.TOPIC, t)));
            groups.add(hides ? new DescribedGroup().setGroupId(group.groupId())
                    .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
                    .setErrorMessage("The group's assignment includes topics this principal may not describe.")
                    : group);
        }
        return answer.setGroups(groups);
    }

    private static Stream<String> assignedTopics(DescribedGroup group) {
        return group.members().stream()
                .flatMap(DescribedGroupAccess::assignments)
                .map(TopicPartitions::topicName);
    }

    private static Stream<TopicPartitions> assignments(Member member) {
        return Stream.concat(member.assignment().topicPartitions().stream(),
                member.targetAssignment().topicPartitions().stream());
    }
}
