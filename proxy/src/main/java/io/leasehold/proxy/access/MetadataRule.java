package io.leasehold.proxy.access;

import io.leasehold.proxy.authorization.Authorizer;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * Metadata: the answer lists only topics the principal may DESCRIBE; a named topic it may not is
 * answered TOPIC_AUTHORIZATION_FAILED, and auto-creation is turned off for topics it may not
 * CREATE (see {@link MetadataAccess}).
 */
final class MetadataRule implements AccessRule {

    @Override
    public AnswerFilter answers(Authorizer decider, ApiMessage request, short version, KafkaPrincipal principal) {
        MetadataAccess access = new MetadataAccess(decider);
        MetadataAccess.Question question = access.beforeForwarding((MetadataRequestData) request, version,
                principal);
        return (answer, topicNames) -> access.visible(question, (MetadataResponseData) answer, principal);
    }
}
