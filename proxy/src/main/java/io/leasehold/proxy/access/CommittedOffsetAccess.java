package io.leasehold.proxy.access;

import io.leasehold.proxy.authorization.Authorizer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseGroup;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartition;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartitions;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseTopic;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseTopics;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * The committed offsets an OffsetFetch answer may show its principal, as Kafka decides them once
 * the group itself is allowed: a topic the principal may not DESCRIBE is left out of an answer
 * about all of a group's topics, and a topic the request named is answered
 * TOPIC_AUTHORIZATION_FAILED on each of its partitions (UNKNOWN_TOPIC_ID for a v10 topic id the
 * proxy cannot name). Only partitions the coordinator answered without error are touched, so a
 * refused or failed group keeps its own error.
 */
public final class CommittedOffsetAccess {
    private static final long NO_OFFSET = -1L;
    private static final int NO_EPOCH = -1;

    private final Authorizer authorizer;

    public CommittedOffsetAccess(Authorizer authorizer) {
        this.authorizer = authorizer;
    }

    /** The topic ids of a v10 answer: their names are needed before it can be decided. */
    public static Set<Uuid> topicIds(OffsetFetchResponseData answer) {
        Set<Uuid> ids = new HashSet<>();
        for (OffsetFetchResponseGroup group : answer.groups()) {
            for (OffsetFetchResponseTopics topic : group.topics()) {
                if (!Uuid.ZERO_UUID.equals(topic.topicId())) {
                    ids.add(topic.topicId());
                }
            }
        }
        return ids;
    }

    /**
     * Restricts {@code answer} (in place) to what {@code principal} may see.
     *
     * @param topicNames names of the topic ids in {@code answer} (see {@link #topicIds})
     */
    public OffsetFetchResponseData visible(OffsetFetchRequestData request, OffsetFetchResponseData answer,
                                           KafkaPrincipal principal, Map<Uuid, String> topicNames) {
        if (!authorizer.enabled()) {
            return answer;
        }
        Decisions decisions = new Decisions(principal);
        boolean named = request.topics() != null;
        if (!named) {
            answer.setTopics(new ArrayList<>(answer.topics().stream().filter(t -> decisions.quietly(t.name()))
                    .toList()));
        }
        for (OffsetFetchResponseTopic topic : answer.topics()) {
            if (named && !decisions.loudly(topic.name())) {
                refuseTopic(topic.partitions(), Errors.TOPIC_AUTHORIZATION_FAILED);
            }
        }
        Map<String, Boolean> namedByGroup = new HashMap<>();
        for (OffsetFetchRequestGroup group : request.groups()) {
            namedByGroup.put(group.groupId(), group.topics() != null);
        }
        for (OffsetFetchResponseGroup group : answer.groups()) {
            boolean groupNamed = namedByGroup.getOrDefault(group.groupId(), true);
            if (!groupNamed) {
                group.setTopics(new ArrayList<>(group.topics().stream()
                        .filter(t -> decisions.quietly(nameOf(t, topicNames))).toList()));
            }
            for (OffsetFetchResponseTopics topic : group.topics()) {
                String name = nameOf(topic, topicNames);
                if (name == null) {
                    refuseGroupTopic(topic.partitions(), Errors.UNKNOWN_TOPIC_ID);
                } else if (groupNamed && !decisions.loudly(name)) {
                    refuseGroupTopic(topic.partitions(), Errors.TOPIC_AUTHORIZATION_FAILED);
                }
            }
        }
        return answer;
    }

    /** A v8/v9 topic's name, or a v10 topic id's name; null for an id nobody could name. */
    private static String nameOf(OffsetFetchResponseTopics topic, Map<Uuid, String> topicNames) {
        if (topic.name() != null && !topic.name().isEmpty()) {
            return topic.name();
        }
        return topicNames.get(topic.topicId());
    }

    private static void refuseTopic(List<OffsetFetchResponsePartition> partitions, Errors error) {
        for (OffsetFetchResponsePartition partition : partitions) {
            if (partition.errorCode() == Errors.NONE.code()) {
                partition.setErrorCode(error.code()).setCommittedOffset(NO_OFFSET)
                        .setCommittedLeaderEpoch(NO_EPOCH).setMetadata("");
            }
        }
    }

    private static void refuseGroupTopic(List<OffsetFetchResponsePartitions> partitions, Errors error) {
        for (OffsetFetchResponsePartitions partition : partitions) {
            if (partition.errorCode() == Errors.NONE.code()) {
                partition.setErrorCode(error.code()).setCommittedOffset(NO_OFFSET)
                        .setCommittedLeaderEpoch(NO_EPOCH).setMetadata("");
            }
        }
    }

    /**
     * DESCRIBE on each topic, decided once per answer and kind: quietly for topics left out of an
     * all-topics answer (as Kafka does not log those), counted and logged for named ones. The two
     * are kept apart so a topic first met quietly is still logged when another group names it.
     */
    private final class Decisions {
        private final KafkaPrincipal principal;
        private final Map<String, Boolean> quiet = new HashMap<>();
        private final Map<String, Boolean> loud = new HashMap<>();

        Decisions(KafkaPrincipal principal) {
            this.principal = principal;
        }

        boolean quietly(String topic) {
            return topic != null && quiet.computeIfAbsent(topic, t -> authorizer.allowsQuietly(principal,
                    AclOperation.DESCRIBE, ResourceType.TOPIC, t));
        }

        boolean loudly(String topic) {
            return loud.computeIfAbsent(topic, t -> authorizer.allows(principal, AclOperation.DESCRIBE,
                    ResourceType.TOPIC, t));
        }
    }
}
