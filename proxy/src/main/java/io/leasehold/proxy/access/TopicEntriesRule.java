package io.leasehold.proxy.access;

import io.leasehold.proxy.authorization.Authorizer;
import io.leasehold.proxy.exchange.EntryAccess;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * The partition-keyed APIs (Produce WRITE, Fetch READ, ListOffsets and OffsetForLeaderEpoch
 * DESCRIBE): each topic needs the operation; a refused topic's partitions are answered
 * TOPIC_AUTHORIZATION_FAILED and never sent, the others go through.
 */
final class TopicEntriesRule implements AccessRule {
    private final AclOperation operation;

    TopicEntriesRule(AclOperation operation) {
        this.operation = operation;
    }

    @Override
    public EntryAccess entries(Authorizer decider, KafkaPrincipal principal) {
        return AccessChecks.entries(decider, principal, ResourceType.TOPIC, operation,
                Errors.TOPIC_AUTHORIZATION_FAILED);
    }
}
