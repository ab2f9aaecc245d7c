package io.leasehold.proxy.access;

import io.leasehold.proxy.authorization.Authorizer;
import io.leasehold.proxy.versions.FirstVersions;
import java.util.HashSet;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.Resource;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * Metadata as the principal may see it, as Kafka decides it, applied around the finished answer:
 * topics it may not DESCRIBE are left out of an all-topics answer (an empty topic list in v0, a
 * null one later), and a topic it named but may not describe is answered
 * TOPIC_AUTHORIZATION_FAILED with nothing else about it: with its name when it was named, with
 * its id but no name when it was asked by id (ids are not sensitive, names are). A topic is
 * created on a Metadata request only for a principal with CREATE on the cluster or on that
 * topic; a topic that does not exist, was to be created (always so below v4) and may not be is
 * answered TOPIC_AUTHORIZATION_FAILED, as a Kafka broker with auto-creation on answers it.
 */
public final class MetadataAccess {
    private final Authorizer authorizer;

    /**
     * What the client asked, read before the request is changed for the backends.
     *
     * @param allTopics        every topic (null list, or an empty one in v0)
     * @param byId             topics named by id (Metadata v12+), whose names the answer may not reveal
     * @param creationRefused  topics the client asked to create that the principal may not create
     */
    public record Question(boolean allTopics, boolean byId, Set<String> creationRefused) {
    }

    public MetadataAccess(Authorizer authorizer) {
        this.authorizer = authorizer;
    }

    /** Whether {@code request} of {@code version} asks for every topic. */
    static boolean asksAllTopics(MetadataRequestData request, short version) {
        return request.topics() == null || version == 0 && request.topics().isEmpty();
    }

    /**
     * Reads what {@code request} (freshly decoded) asks, then turns auto-creation off in it if any
     * named topic may not be created. Below v4 auto-creation is implied by the protocol.
     */
    public Question beforeForwarding(MetadataRequestData request, short version, KafkaPrincipal principal) {
        boolean allTopics = asksAllTopics(request, version);
        boolean byId = !allTopics && request.topics().stream()
                .anyMatch(topic -> topic.topicId() != null && !Uuid.ZERO_UUID.equals(topic.topicId()));
        boolean creationAsked = version < FirstVersions.METADATA_WITHOUT_CREATION || request.allowAutoTopicCreation();
        Set<String> refused = new HashSet<>();
        if (authorizer.enabled() && creationAsked && !allTopics
                && !authorizer.allowsQuietly(principal, AclOperation.CREATE, ResourceType.CLUSTER,
                        Resource.CLUSTER_NAME)) {
            for (MetadataRequestData.MetadataRequestTopic topic : request.topics()) {
                if (topic.name() == null) {
                    request.setAllowAutoTopicCreation(false);
                } else if (!authorizer.allowsQuietly(principal, AclOperation.CREATE, ResourceType.TOPIC,
                        topic.name())) {
                    refused.add(topic.name());
                    request.setAllowAutoTopicCreation(false);
                }
            }
        }
        return new Question(allTopics, byId, Set.copyOf(refused));
    }

    /**
     * The answer {@code principal} may see to {@code question}; {@code response} is shared
     * (cached) and left as it is.
     */
    public MetadataResponseData visible(Question question, MetadataResponseData response, KafkaPrincipal principal) {
        if (!authorizer.enabled()) {
            return response;
        }
        MetadataResponseData filtered = response.duplicate();
        filtered.topics().clear();
        for (MetadataResponseTopic topic : response.topics()) {
            String name = topic.name();
            if (name == null) {
                // An id the backend does not know (UNKNOWN_TOPIC_ID): there is no name to hide.
                if (!question.allTopics()) {
                    filtered.topics().add(topic.duplicate());
                }
                continue;
            }
            boolean visible = question.allTopics()
                    ? authorizer.allowsQuietly(principal, AclOperation.DESCRIBE, ResourceType.TOPIC, name)
                    : authorizer.allows(principal, AclOperation.DESCRIBE, ResourceType.TOPIC, name);
            if (visible && question.creationRefused().contains(name)
                    && topic.errorCode() == Errors.UNKNOWN_TOPIC_OR_PARTITION.code()) {
                filtered.topics().add(refused(name, Uuid.ZERO_UUID));
            } else if (visible) {
                filtered.topics().add(topic.duplicate());
            } else if (question.allTopics()) {
                continue;
            } else if (question.byId()) {
                filtered.topics().add(refused(null, topic.topicId()));
            } else {
                filtered.topics().add(refused(name, Uuid.ZERO_UUID));
            }
        }
        return filtered;
    }

    private static MetadataResponseTopic refused(String name, Uuid id) {
        return new MetadataResponseTopic().setName(name).setTopicId(id)
                .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
    }
}
