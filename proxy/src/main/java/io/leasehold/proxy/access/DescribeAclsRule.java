package io.leasehold.proxy.access;

import io.leasehold.proxy.authorization.Authorizer;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.resource.Resource;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * DescribeAcls, answered by the proxy from its ACL file while it authorizes: DESCRIBE on the
 * cluster, or CLUSTER_AUTHORIZATION_FAILED.
 */
final class DescribeAclsRule implements AccessRule {

    @Override
    public ApiException refusal(Authorizer decider, ApiMessage request, KafkaPrincipal principal) {
        return decider.allows(principal, AclOperation.DESCRIBE, ResourceType.CLUSTER, Resource.CLUSTER_NAME) ? null
                : new ClusterAuthorizationException("Not authorized to DESCRIBE the cluster (needed to describe ACLs)");
    }
}
