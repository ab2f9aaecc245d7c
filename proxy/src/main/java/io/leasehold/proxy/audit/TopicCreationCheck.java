package io.leasehold.proxy.audit;

import io.leasehold.proxy.authorization.Authorizer;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.Resource;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * Decides the topics of one CreateTopics request: a topic may be created with CREATE on the topic
 * or CREATE on the cluster, as in Kafka. The grant that decides is the one asked through
 * {@link Authorizer#allows}, so that an auditing authorizer writes the line that explains the
 * creation: CREATE on the TOPIC when the topic's own rules allow it, otherwise CREATE on the
 * CLUSTER (once per request, not once per topic), otherwise the topic's DENY.
 */
public final class TopicCreationCheck {
    private final Authorizer authorizer;
    private final KafkaPrincipal principal;
    private boolean clusterGrantReported;

    /** @param authorizer the authorizer of the one request being decided */
    public TopicCreationCheck(Authorizer authorizer, KafkaPrincipal principal) {
        this.authorizer = authorizer;
        this.principal = principal;
    }

    /** Whether {@code topic} may be created. */
    public boolean allows(String topic) {
        if (authorizer.allowsQuietly(principal, AclOperation.CREATE, ResourceType.TOPIC, topic)) {
            return authorizer.allows(principal, AclOperation.CREATE, ResourceType.TOPIC, topic);
        }
        if (authorizer.allowsQuietly(principal, AclOperation.CREATE, ResourceType.CLUSTER, Resource.CLUSTER_NAME)) {
            if (clusterGrantReported) {
                return true;
            }
            clusterGrantReported = true;
            return authorizer.allows(principal, AclOperation.CREATE, ResourceType.CLUSTER, Resource.CLUSTER_NAME);
        }
        return authorizer.allows(principal, AclOperation.CREATE, ResourceType.TOPIC, topic);
    }
}
