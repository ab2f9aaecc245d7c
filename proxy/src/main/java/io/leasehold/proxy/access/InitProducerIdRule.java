package io.leasehold.proxy.access;

import io.leasehold.proxy.authorization.Authorizer;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.resource.Resource;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * InitProducerId: an idempotent producer needs IDEMPOTENT_WRITE on the cluster or WRITE on some
 * topic (Kafka's rule), or it is refused with CLUSTER_AUTHORIZATION_FAILED. One with a
 * transactional id passes here: the dispatcher refuses every transaction, ACLs or not.
 */
final class InitProducerIdRule implements AccessRule {

    @Override
    public ApiException refusal(Authorizer decider, ApiMessage request, KafkaPrincipal principal) {
        if (((InitProducerIdRequestData) request).transactionalId() != null) {
            return null;
        }
        if (decider.allowsQuietly(principal, AclOperation.IDEMPOTENT_WRITE, ResourceType.CLUSTER,
                Resource.CLUSTER_NAME) || decider.allowsAny(principal, AclOperation.WRITE, ResourceType.TOPIC)) {
            return null;
        }
        return AccessChecks.cluster(decider, principal, AclOperation.IDEMPOTENT_WRITE);
    }
}
