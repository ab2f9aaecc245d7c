package io.leasehold.proxy.access;

import io.leasehold.proxy.authorization.Authorizer;
import io.leasehold.proxy.exchange.EntryAccess;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * The group APIs that name several groups and whose answers name no topics (DescribeGroups
 * DESCRIBE, DeleteGroups DELETE): each group needs the operation; a refused group is answered
 * GROUP_AUTHORIZATION_FAILED, the others go through.
 */
final class GroupEntriesRule implements AccessRule {
    private final AclOperation operation;

    GroupEntriesRule(AclOperation operation) {
        this.operation = operation;
    }

    @Override
    public EntryAccess entries(Authorizer decider, KafkaPrincipal principal) {
        return AccessChecks.entries(decider, principal, ResourceType.GROUP, operation,
                Errors.GROUP_AUTHORIZATION_FAILED);
    }
}
