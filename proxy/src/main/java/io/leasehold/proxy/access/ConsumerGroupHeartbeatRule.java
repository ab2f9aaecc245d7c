package io.leasehold.proxy.access;

import io.leasehold.proxy.authorization.Authorizer;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * ConsumerGroupHeartbeat: READ on the group, then, as Kafka 4 checks it, DESCRIBE on every topic
 * the member subscribes to by name: one it may not describe refuses the whole heartbeat
 * (TOPIC_AUTHORIZATION_FAILED), so the group never assigns it that topic. A subscription by
 * regular expression is refused too: the broker resolves it as the proxy's own login, which would
 * hand the member topics its principal may not see, and the proxy cannot narrow a resolution it
 * does not make.
 */
final class ConsumerGroupHeartbeatRule implements AccessRule {

    @Override
    public ApiException refusal(Authorizer decider, ApiMessage request, KafkaPrincipal principal) {
        ConsumerGroupHeartbeatRequestData heartbeat = (ConsumerGroupHeartbeatRequestData) request;
        ApiException refusal = AccessChecks.group(decider, principal, AclOperation.READ, heartbeat.groupId());
        if (refusal != null) {
            return refusal;
        }
        if (heartbeat.subscribedTopicRegex() != null && !heartbeat.subscribedTopicRegex().isEmpty()) {
            return new TopicAuthorizationException("Subscribing by regular expression is not supported through"
                    + " this proxy while it authorizes requests; subscribe to topic names instead");
        }
        if (heartbeat.subscribedTopicNames() == null) {
            return null;
        }
        Set<String> refused = new TreeSet<>();
        for (String topic : heartbeat.subscribedTopicNames()) {
            if (!decider.allows(principal, AclOperation.DESCRIBE, ResourceType.TOPIC, topic)) {
                refused.add(topic);
            }
        }
        return refused.isEmpty() ? null : new TopicAuthorizationException(refused);
    }
}
