package io.leasehold.proxy.routing;

import io.leasehold.proxy.authorization.Authorizer;
import io.leasehold.proxy.protocol.RequestFrame;
import java.util.List;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.message.DescribeAclsResponseData;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeAclsRequest;
import org.apache.kafka.common.requests.DescribeAclsResponse;
import org.apache.kafka.common.resource.Resource;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * The ACL APIs while the proxy authorizes: the proxy's ACL file is the only rule set, so they
 * never reach a broker. DescribeAcls answers from the file (DESCRIBE on the cluster needed);
 * CreateAcls and DeleteAcls are refused with CLUSTER_AUTHORIZATION_FAILED and a message saying
 * the ACLs are managed in the file.
 */
final class AclApis {
    static final String FILE_MANAGED = "ACLs are managed in the Leasehold proxy's ACL file (authorization.aclsFile);"
            + " change that file instead";

    private final Authorizer authorizer;

    AclApis(Authorizer authorizer) {
        this.authorizer = authorizer;
    }

    /** The refusal of a CreateAcls or DeleteAcls request. */
    ApiException changeRefusal() {
        return new ClusterAuthorizationException(FILE_MANAGED);
    }

    /** The DescribeAcls answer for {@code frame}, or the refusal as an exception if the principal may not describe. */
    DescribeAclsResponseData describe(RequestFrame frame, KafkaPrincipal principal) {
        if (!authorizer.allows(principal, AclOperation.DESCRIBE, ResourceType.CLUSTER, Resource.CLUSTER_NAME)) {
            throw new ClusterAuthorizationException("Not authorized to DESCRIBE the cluster (needed to describe ACLs)");
        }
        AclBindingFilter filter = DescribeAclsRequest.parse(new ByteBufferAccessor(frame.body()), frame.version())
                .filter();
        List<AclBinding> matching = authorizer.bindings().stream().filter(filter::matches).toList();
        return new DescribeAclsResponseData().setErrorCode(Errors.NONE.code())
                .setResources(DescribeAclsResponse.aclsResources(matching));
    }
}
