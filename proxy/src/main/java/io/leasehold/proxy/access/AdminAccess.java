package io.leasehold.proxy.access;

import io.leasehold.proxy.audit.TopicCreationCheck;
import io.leasehold.proxy.authorization.Authorizer;
import io.leasehold.proxy.exchange.AdminSplit;
import io.leasehold.proxy.exchange.ResourceSplit;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.resource.Resource;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * Decides the requests that name several topics or config resources one resource at a time,
 * by Kafka's rules: CREATE on the cluster or the topic for CreateTopics, DELETE on the topic for
 * DeleteTopics, ALTER on the topic for CreatePartitions, DESCRIBE_CONFIGS / ALTER_CONFIGS on the
 * topic, the group, or (broker, broker-logger and client-metrics configs) the cluster, READ on
 * the topic for OffsetCommit and OffsetDelete (whose group is checked first, whole). A refused resource is answered with TOPIC_, GROUP_ or CLUSTER_AUTHORIZATION_FAILED
 * and the rest of the request is carried out.
 */
public final class AdminAccess {
    private final Authorizer authorizer;

    public AdminAccess(Authorizer authorizer) {
        this.authorizer = authorizer;
    }

    /**
     * The topic ids {@code body} names (DeleteTopics v6+, OffsetCommit v10): their names are
     * needed before it can be decided.
     */
    public static Set<Uuid> topicIds(ApiMessage body) {
        if (body instanceof DeleteTopicsRequestData delete) {
            return delete.topics().stream().filter(t -> t.name() == null)
                    .map(DeleteTopicsRequestData.DeleteTopicState::topicId)
                    .filter(id -> !Uuid.ZERO_UUID.equals(id)).collect(Collectors.toSet());
        }
        if (body instanceof OffsetCommitRequestData commit) {
            return commit.topics().stream().filter(t -> t.name().isEmpty())
                    .map(OffsetCommitRequestData.OffsetCommitRequestTopic::topicId).collect(Collectors.toSet());
        }
        return Set.of();
    }

    /**
     * The topics named in {@code body} whose existence decides {@code principal}'s answer: a
     * DeleteTopics of a topic it may DESCRIBE but not DELETE. Kafka tells such a principal that a
     * missing topic is unknown (UNKNOWN_TOPIC_OR_PARTITION) and refuses only existing ones; a
     * principal that may not describe the topic is refused either way, so nothing is revealed.
     */
    public Set<String> topicsWhoseExistenceDecides(ApiMessage body, KafkaPrincipal principal) {
        if (!(body instanceof DeleteTopicsRequestData delete)) {
            return Set.of();
        }
        Stream<String> names = delete.topics().isEmpty() ? delete.topicNames().stream()
                : delete.topics().stream().map(DeleteTopicsRequestData.DeleteTopicState::name).filter(Objects::nonNull);
        return names.filter(name -> !authorizer.allowsQuietly(principal, AclOperation.DELETE, ResourceType.TOPIC, name)
                        && authorizer.allowsQuietly(principal, AclOperation.DESCRIBE, ResourceType.TOPIC, name))
                .collect(Collectors.toSet());
    }

    /** As {@link #split(ApiMessage, KafkaPrincipal, Map, Set)}, with every named topic taken to exist. */
    public AdminSplit split(ApiMessage body, KafkaPrincipal principal, Map<Uuid, String> topicNames) {
        return split(body, principal, topicNames, Set.of());
    }

    /**
     * Decides each resource of {@code body} for {@code principal}.
     *
     * @param topicNames    names of the topic ids in {@code body} (see {@link #topicIds}); an id
     *                      missing here is answered UNKNOWN_TOPIC_ID
     * @param unknownTopics those of {@link #topicsWhoseExistenceDecides} no broker knows
     * @throws IllegalArgumentException if {@code body} is not one of the APIs decided here
     */
    public AdminSplit split(ApiMessage body, KafkaPrincipal principal, Map<Uuid, String> topicNames,
                     Set<String> unknownTopics) {
        if (body instanceof CreateTopicsRequestData create) {
            TopicCreationCheck creation = new TopicCreationCheck(authorizer, principal);
            return ResourceSplit.of(AdminResourceLists.CREATE_TOPICS, create, topic -> creation.allows(topic.name())
                    ? null : new ApiError(Errors.TOPIC_AUTHORIZATION_FAILED, "Not authorized to CREATE topic "
                    + topic.name()));
        }
        if (body instanceof DeleteTopicsRequestData delete) {
            return delete.topics().isEmpty()
                    ? ResourceSplit.of(AdminResourceLists.DELETE_TOPIC_NAMES, delete,
                            name -> deletion(principal, name, unknownTopics))
                    : deleteTopics(delete, principal, topicNames, unknownTopics);
        }
        if (body instanceof CreatePartitionsRequestData partitions) {
            return ResourceSplit.of(AdminResourceLists.CREATE_PARTITIONS, partitions,
                    topic -> topic(principal, AclOperation.ALTER, topic.name()));
        }
        if (body instanceof DescribeConfigsRequestData describe) {
            return ResourceSplit.of(AdminResourceLists.DESCRIBE_CONFIGS, describe, r -> config(principal,
                    AclOperation.DESCRIBE_CONFIGS, r.resourceType(), r.resourceName()));
        }
        if (body instanceof AlterConfigsRequestData alter) {
            return ResourceSplit.of(AdminResourceLists.ALTER_CONFIGS, alter, r -> config(principal,
                    AclOperation.ALTER_CONFIGS, r.resourceType(), r.resourceName()));
        }
        if (body instanceof IncrementalAlterConfigsRequestData alter) {
            return ResourceSplit.of(AdminResourceLists.INCREMENTAL_ALTER_CONFIGS, alter, r -> config(principal,
                    AclOperation.ALTER_CONFIGS, r.resourceType(), r.resourceName()));
        }
        if (body instanceof OffsetCommitRequestData commit) {
            return ResourceSplit.of(AdminResourceLists.OFFSET_COMMIT, commit, topic -> topic.name().isEmpty()
                    ? topicById(principal, AclOperation.READ, topic.topicId(), topicNames)
                    : topic(principal, AclOperation.READ, topic.name()));
        }
        if (body instanceof OffsetDeleteRequestData delete) {
            return ResourceSplit.of(AdminResourceLists.OFFSET_DELETE, delete,
                    topic -> topic(principal, AclOperation.READ, topic.name()));
        }
        throw new IllegalArgumentException(body.getClass().getSimpleName() + " is not decided per resource");
    }

    /**
     * DeleteTopics v6+. A topic given by id is decided on its name: an unknown id gets
     * UNKNOWN_TOPIC_ID; a refused one TOPIC_AUTHORIZATION_FAILED, with its name only when the
     * principal may describe the topic (Kafka never tells a name the client may not see).
     */
    private AdminSplit deleteTopics(DeleteTopicsRequestData delete, KafkaPrincipal principal,
                                    Map<Uuid, String> topicNames, Set<String> unknownTopics) {
        Map<Uuid, String> disclosed = new HashMap<>();
        for (Uuid id : topicIds(delete)) {
            String name = topicNames.get(id);
            if (name != null && authorizer.allowsQuietly(principal, AclOperation.DESCRIBE, ResourceType.TOPIC, name)) {
                disclosed.put(id, name);
            }
        }
        return ResourceSplit.of(AdminResourceLists.deleteTopics(disclosed), delete, topic -> {
            if (topic.name() != null) {
                return deletion(principal, topic.name(), unknownTopics);
            }
            if (Uuid.ZERO_UUID.equals(topic.topicId())) {
                return new ApiError(Errors.INVALID_REQUEST, "A topic to delete needs a name or an id, this one has "
                        + "neither");
            }
            String name = topicNames.get(topic.topicId());
            if (name == null) {
                return new ApiError(Errors.UNKNOWN_TOPIC_ID, "No topic has the id " + topic.topicId());
            }
            if (authorizer.allows(principal, AclOperation.DELETE, ResourceType.TOPIC, name)) {
                return null;
            }
            return new ApiError(Errors.TOPIC_AUTHORIZATION_FAILED, "Not authorized to DELETE topic "
                    + (disclosed.containsKey(topic.topicId()) ? name : "id " + topic.topicId()));
        });
    }

    /** A topic to delete by name: refused without DELETE, unless it is one of {@code unknownTopics}. */
    private ApiError deletion(KafkaPrincipal principal, String name, Set<String> unknownTopics) {
        ApiError refused = topic(principal, AclOperation.DELETE, name);
        return refused != null && unknownTopics.contains(name) ? new ApiError(Errors.UNKNOWN_TOPIC_OR_PARTITION)
                : refused;
    }

    /** A topic given by id (OffsetCommit v10), decided on its name; an id nobody can name is unknown. */
    private ApiError topicById(KafkaPrincipal principal, AclOperation operation, Uuid id, Map<Uuid, String> names) {
        String name = names.get(id);
        return name == null ? new ApiError(Errors.UNKNOWN_TOPIC_ID, "No topic has the id " + id)
                : topic(principal, operation, name);
    }

    private ApiError topic(KafkaPrincipal principal, AclOperation operation, String name) {
        return authorizer.allows(principal, operation, ResourceType.TOPIC, name) ? null
                : new ApiError(Errors.TOPIC_AUTHORIZATION_FAILED, "Not authorized to " + operation + " topic " + name);
    }

    /** Topic configs are checked on the topic, group configs on the group, all others on the cluster. */
    private ApiError config(KafkaPrincipal principal, AclOperation operation, byte type, String name) {
        ConfigResource.Type resource = ConfigResource.Type.forId(type);
        return switch (resource) {
            case TOPIC -> topic(principal, operation, name);
            case GROUP -> authorizer.allows(principal, operation, ResourceType.GROUP, name) ? null
                    : new ApiError(Errors.GROUP_AUTHORIZATION_FAILED, "Not authorized to " + operation + " group "
                    + name);
            case BROKER, BROKER_LOGGER, CLIENT_METRICS ->
                    authorizer.allows(principal, operation, ResourceType.CLUSTER, Resource.CLUSTER_NAME) ? null
                            : new ApiError(Errors.CLUSTER_AUTHORIZATION_FAILED, "Not authorized to " + operation
                            + " the cluster, which " + resource + " configs need");
            default -> new ApiError(Errors.INVALID_REQUEST, "Unknown config resource type " + type + " for "
                    + name);
        };
    }
}
