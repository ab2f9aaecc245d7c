package io.leasehold.proxy.apis;

import io.leasehold.proxy.authorization.Authorizer;
import io.leasehold.proxy.protocol.RequestFrame;
import java.util.List;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.DescribeAclsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeAclsRequest;
import org.apache.kafka.common.requests.DescribeAclsResponse;

/**
 * The ACL APIs while the proxy authorizes: the proxy's ACL file is the only rule set, so they
 * never reach a broker, and the proxy advertises them whatever the brokers support. DescribeAcls
 * is answered from the file; CreateAcls and DeleteAcls are refused by their access rule.
 */
public final class AclApis {
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

    /**
     * The DescribeAcls answer for {@code frame}: the file's bindings its filter matches. Who may
     * ask is the DescribeAcls access rule's decision, taken before.
     */
    public DescribeAclsResponseData describe(RequestFrame frame) {
        AclBindingFilter filter = DescribeAclsRequest.parse(new ByteBufferAccessor(frame.body()), frame.version())
                .filter();
        List<AclBinding> matching = authorizer.bindings().stream().filter(filter::matches).toList();
        return new DescribeAclsResponseData().setErrorCode(Errors.NONE.code())
                .setResources(DescribeAclsResponse.aclsResources(matching));
    }
}
