package io.leasehold.proxy.routing;

import io.leasehold.proxy.authorization.Authorizer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.Resource;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * Metadata as the principal may see it, applied around the finished answer: topics it may not
 * DESCRIBE are left out of an all-topics answer, and a topic it named but may not describe is
 * answered TOPIC_AUTHORIZATION_FAILED with nothing else about it. A topic is created on a
 * Metadata request only for a principal with CREATE on the cluster or on that topic.
 */
final class MetadataAccess {
    private final Authorizer authorizer;

    MetadataAccess(Authorizer authorizer) {
        this.authorizer = authorizer;
    }

    /** Turns auto-creation off in {@code request} (freshly decoded) if any named topic may not be created. */
    void beforeForwarding(MetadataRequestData request, KafkaPrincipal principal) {
        if (!authorizer.enabled() || !request.allowAutoTopicCreation() || request.topics() == null
                || authorizer.allowsQuietly(principal, AclOperation.CREATE, ResourceType.CLUSTER,
                        Resource.CLUSTER_NAME)) {
            return;
        }
        for (MetadataRequestData.MetadataRequestTopic topic : request.topics()) {
            if (topic.name() == null
                    || !authorizer.allowsQuietly(principal, AclOperation.CREATE, ResourceType.TOPIC, topic.name())) {
                request.setAllowAutoTopicCreation(false);
                return;
            }
        }
    }

    /**
     * The answer {@code principal} may see; {@code response} is shared (cached) and left as it is.
     *
     * @param named true if the client named topics, false if it asked for all of them
     */
    MetadataResponseData visible(boolean named, MetadataResponseData response, KafkaPrincipal principal) {
        if (!authorizer.enabled()) {
            return response;
        }
        MetadataResponseData filtered = response.duplicate();
        filtered.topics().clear();
        for (MetadataResponseTopic topic : response.topics()) {
            String name = topic.name();
            boolean visible = name != null && (named
                    ? authorizer.allows(principal, AclOperation.DESCRIBE, ResourceType.TOPIC, name)
                    : authorizer.allowsQuietly(principal, AclOperation.DESCRIBE, ResourceType.TOPIC, name));
            if (visible) {
                filtered.topics().add(topic.duplicate());
            } else if (named) {
                filtered.topics().add(new MetadataResponseTopic().setName(name).setTopicId(Uuid.ZERO_UUID)
                        .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code()));
            }
        }
        return filtered;
    }
}
