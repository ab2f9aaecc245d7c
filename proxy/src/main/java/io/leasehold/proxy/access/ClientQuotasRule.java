package io.leasehold.proxy.access;

import io.leasehold.proxy.authorization.Authorizer;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * The client quota APIs: DescribeClientQuotas needs DESCRIBE_CONFIGS and AlterClientQuotas
 * ALTER_CONFIGS on the cluster, or the whole request is refused (CLUSTER_AUTHORIZATION_FAILED).
 */
final class ClientQuotasRule implements AccessRule {
    private final AclOperation operation;

    ClientQuotasRule(AclOperation operation) {
        this.operation = operation;
    }

    @Override
    public ApiException refusal(Authorizer decider, ApiMessage request, KafkaPrincipal principal) {
        return AccessChecks.cluster(decider, principal, operation);
    }
}
