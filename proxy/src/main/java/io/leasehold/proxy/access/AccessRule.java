package io.leasehold.proxy.access;

import io.leasehold.proxy.authorization.Authorizer;
import io.leasehold.proxy.exchange.EntryAccess;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * What one API (or API family) needs from the ACLs, as Kafka checks it: the one place that
 * answers "what does Leasehold check for this request". The dispatcher asks it at the points
 * where a request can be refused or narrowed; an API that needs nothing at one of them keeps
 * the default, which lets everything through. The authorizer is handed in per request, since
 * each request's decisions are reported to the audit log with that request's client.
 */
public interface AccessRule {

    /**
     * Before anything is sent: why {@code principal} may not send {@code request} at all, or null
     * if it may (asked with authorization on only).
     */
    default ApiException refusal(Authorizer decider, ApiMessage request, KafkaPrincipal principal) {
        return null;
    }

    /**
     * For a request split into entries (a topic's partitions, or a group): which entries go on;
     * a refused one is answered with its error while the rest of the request goes through.
     */
    default EntryAccess entries(Authorizer decider, KafkaPrincipal principal) {
        return EntryAccess.everything();
    }

    /**
     * True if, with authorization on, the request is decided one named resource at a time (topics,
     * config resources): the refused ones are answered by the proxy and the rest is sent on.
     */
    default boolean decidesPerResource() {
        return false;
    }

    /**
     * What of the answer {@code principal} may see; asked before {@code request} is sent, which
     * it may change (Metadata turns auto-creation off for topics the principal may not create).
     *
     * @param request the decoded request, or null for an API whose answer filter needs none
     */
    default AnswerFilter answers(Authorizer decider, ApiMessage request, short version, KafkaPrincipal principal) {
        return AnswerFilter.unchanged();
    }
}
