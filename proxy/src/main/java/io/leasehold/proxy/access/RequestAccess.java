package io.leasehold.proxy.access;

import io.leasehold.proxy.authorization.Authorizer;
import io.leasehold.proxy.protocol.SingleGroupRequests;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.resource.Resource;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * Checks the requests the proxy forwards whole (single-group APIs, client quotas, InitProducerId)
 * as Kafka does, and names the error the whole request is answered with when anything in it is
 * not allowed. For group requests that name topics (OffsetCommit, OffsetDelete, OffsetFetch) that
 * is the group; their topics are decided one by one afterwards. A ConsumerGroupHeartbeat is refused
 * whole for a subscribed topic as well. The admin APIs that name several topics or config resources are decided one
 * resource at a time instead, by {@link AdminAccess}.
 */
public final class RequestAccess {
    private final Authorizer authorizer;

    public RequestAccess(Authorizer authorizer) {
        this.authorizer = authorizer;
    }

    /**
     * Why {@code principal} may not send {@code body} (an API of {@code api}), or null if it may.
     */
    public ApiException refusal(ApiKeys api, ApiMessage body, KafkaPrincipal principal) {
        if (!authorizer.enabled()) {
            return null;
        }
        return switch (api) {
            case JOIN_GROUP, SYNC_GROUP, HEARTBEAT, LEAVE_GROUP ->
                    group(principal, AclOperation.READ, SingleGroupRequests.groupOf(body));
            case CONSUMER_GROUP_HEARTBEAT -> consumerGroupHeartbeat((ConsumerGroupHeartbeatRequestData) body,
                    principal);
            case OFFSET_COMMIT -> offsetCommit((OffsetCommitRequestData) body, principal);
            case OFFSET_DELETE -> offsetDelete((OffsetDeleteRequestData) body, principal);
            case OFFSET_FETCH -> offsetFetch((OffsetFetchRequestData) body, principal);
            case DESCRIBE_CLIENT_QUOTAS -> cluster(principal, AclOperation.DESCRIBE_CONFIGS);
            case ALTER_CLIENT_QUOTAS -> cluster(principal, AclOperation.ALTER_CONFIGS);
            case INIT_PRODUCER_ID -> idempotentWrite(principal);
            default -> null;
        };
    }

    /** A request naming no group is left to the group router, which refuses it as malformed. */
    private ApiException group(KafkaPrincipal principal, AclOperation operation, String group) {
        return group == null || authorizer.allows(principal, operation, ResourceType.GROUP, group) ? null
                : new GroupAuthorizationException("Not authorized to " + operation + " group " + group, group);
    }

    /**
     * READ on the group, then, as Kafka 4 checks it, DESCRIBE on every topic the member subscribes
     * to by name: one it may not describe refuses the whole heartbeat (TOPIC_AUTHORIZATION_FAILED),
     * so the group never assigns it that topic. A subscription by regular expression is refused
     * too: the broker resolves it as the proxy's own login, which would hand the member topics its
     * principal may not see, and the proxy cannot narrow a resolution it does not make.
     */
    private ApiException consumerGroupHeartbeat(ConsumerGroupHeartbeatRequestData request, KafkaPrincipal principal) {
        ApiException refusal = group(principal, AclOperation.READ, request.groupId());
        if (refusal != null) {
            return refusal;
        }
        if (request.subscribedTopicRegex() != null && !request.subscribedTopicRegex().isEmpty()) {
            return new TopicAuthorizationException("Subscribing by regular expression is not supported through"
                    + " this proxy while it authorizes requests; subscribe to topic names instead");
        }
        if (request.subscribedTopicNames() == null) {
            return null;
        }
        Set<String> refused = new TreeSet<>();
        for (String topic : request.subscribedTopicNames()) {
            if (!authorizer.allows(principal, AclOperation.DESCRIBE, ResourceType.TOPIC, topic)) {
                refused.add(topic);
            }
        }
        return refused.isEmpty() ? null : new TopicAuthorizationException(refused);
    }

    /** The group only: the topics are decided one by one, by {@link AdminAccess}. */
    private ApiException offsetCommit(OffsetCommitRequestData request, KafkaPrincipal principal) {
        return group(principal, AclOperation.READ, request.groupId());
    }

    /** The group only: the topics are decided one by one, by {@link AdminAccess}. */
    private ApiException offsetDelete(OffsetDeleteRequestData request, KafkaPrincipal principal) {
        return group(principal, AclOperation.DELETE, request.groupId());
    }

    /** The group only: its topics are decided in the answer, by {@link CommittedOffsetAccess}. */
    private ApiException offsetFetch(OffsetFetchRequestData request, KafkaPrincipal principal) {
        return group(principal, AclOperation.DESCRIBE, request.groupId());
    }

    private ApiException cluster(KafkaPrincipal principal, AclOperation operation) {
        return authorizer.allows(principal, operation, ResourceType.CLUSTER, Resource.CLUSTER_NAME) ? null
                : new ClusterAuthorizationException("Not authorized to " + operation + " the cluster");
    }

    /**
     * An idempotent producer needs IDEMPOTENT_WRITE on the cluster or WRITE on some topic (Kafka's
     * rule); InitProducerId with a transactional id never gets here (transactions are refused).
     */
    private ApiException idempotentWrite(KafkaPrincipal principal) {
        if (authorizer.allowsQuietly(principal, AclOperation.IDEMPOTENT_WRITE, ResourceType.CLUSTER,
                Resource.CLUSTER_NAME) || authorizer.allowsAny(principal, AclOperation.WRITE, ResourceType.TOPIC)) {
            return null;
        }
        return cluster(principal, AclOperation.IDEMPOTENT_WRITE);
    }
}
