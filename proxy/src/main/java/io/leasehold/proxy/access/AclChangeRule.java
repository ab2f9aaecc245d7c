package io.leasehold.proxy.access;

import io.leasehold.proxy.authorization.Authorizer;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * CreateAcls and DeleteAcls while the proxy authorizes: its ACL file is the only rule set, so
 * they are refused for every principal (CLUSTER_AUTHORIZATION_FAILED) with a message naming it.
 */
final class AclChangeRule implements AccessRule {
    static final String FILE_MANAGED = "ACLs are managed in the Leasehold proxy's ACL file (authorization.aclsFile);"
            + " change that file instead";

    @Override
    public ApiException refusal(Authorizer decider, ApiMessage request, KafkaPrincipal principal) {
        return new ClusterAuthorizationException(FILE_MANAGED);
    }
}
