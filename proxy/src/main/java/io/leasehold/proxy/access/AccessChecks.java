package io.leasehold.proxy.access;

import io.leasehold.proxy.authorization.Authorizer;
import io.leasehold.proxy.exchange.EntryAccess;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.Resource;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/** The checks several rules share, each with the error Kafka answers when it fails. */
final class AccessChecks {
    private AccessChecks() {
    }

    /** A request naming no group is left to the group forwarder, which refuses it as malformed. */
    static ApiException group(Authorizer authorizer, KafkaPrincipal principal, AclOperation operation, String group) {
        return group == null || authorizer.allows(principal, operation, ResourceType.GROUP, group) ? null
                : new GroupAuthorizationException("Not authorized to " + operation + " group " + group, group);
    }

    static ApiException cluster(Authorizer authorizer, KafkaPrincipal principal, AclOperation operation) {
        return authorizer.allows(principal, operation, ResourceType.CLUSTER, Resource.CLUSTER_NAME) ? null
                : new ClusterAuthorizationException("Not authorized to " + operation + " the cluster");
    }

    /**
     * Entries named by a {@code type} resource that need {@code operation}, refused with
     * {@code refusal}; a name is checked once per request however many partitions it has.
     */
    static EntryAccess entries(Authorizer authorizer, KafkaPrincipal principal, ResourceType type,
                               AclOperation operation, Errors refusal) {
        if (!authorizer.enabled()) {
            return EntryAccess.everything();
        }
        Map<String, Boolean> allowed = new HashMap<>();
        return name -> allowed.computeIfAbsent(name, n -> authorizer.allows(principal, operation, type, n))
                ? null : refusal;
    }
}
