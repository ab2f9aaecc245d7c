package io.leasehold.proxy.apis;

import io.leasehold.proxy.authorization.Authorizer;
import io.leasehold.proxy.protocol.RequestFrame;
import java.util.List;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.DescribeAclsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeAclsRequest;
import org.apache.kafka.common.requests.DescribeAclsResponse;
import org.apache.kafka.common.resource.Resource;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * The ACL APIs while the proxy authorizes: the proxy's ACL file is the only rule set, so they
 * never reach a broker, and the proxy advertises them whatever the brokers support. DescribeAcls answers from the file (DESCRIBE on the cluster needed);
 * CreateAcls and DeleteAcls are refused with CLUSTER_AUTHORIZATION_FAILED and a message saying
 * the ACLs are managed in the file.
 */
public final class AclApis {
    static final String FILE_MANAGED = "ACLs are managed in the Leasehold proxy's ACL file (authorization.aclsFile);"
            + " change that file instead";

    private final Authorizer authorizer;

    public AclApis(Authorizer authorizer) {
        this.authorizer = authorizer;
    }

    /**
     * {@code shared} (the backends' intersection, left as it is) with the ACL APIs at every version
     * kafka-clients knows, when the proxy answers them itself; {@code shared} when it does not.
     */
    public ApiVersionsResponseData advertised(ApiVersionsResponseData shared) {
        if (!authorizer.enabled()) {
            return shared;
        }
        ApiVersionsResponseData answer = shared.duplicate();
        for (ApiKeys api : List.of(ApiKeys.DESCRIBE_ACLS, ApiKeys.CREATE_ACLS, ApiKeys.DELETE_ACLS)) {
            ApiVersion known = answer.apiKeys().find(api.id);
            if (known != null) {
                answer.apiKeys().remove(known);
            }
            answer.apiKeys().add(new ApiVersion().setApiKey(api.id).setMinVersion(api.oldestVersion())
                    .setMaxVersion(api.latestVersion()));
        }
        return answer;
    }

    /** The refusal of a CreateAcls or DeleteAcls request. */
    public ApiException changeRefusal() {
        return new ClusterAuthorizationException(FILE_MANAGED);
    }

    /** The DescribeAcls answer for {@code frame}, or the refusal as an exception if the principal may not describe. */
    public DescribeAclsResponseData describe(RequestFrame frame, KafkaPrincipal principal) {
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
