package io.leasehold.proxy.request;

import io.leasehold.proxy.protocol.MalformedRequestException;
import io.leasehold.proxy.protocol.RequestFrame;
import org.apache.kafka.common.errors.ApiException;

/**
 * The access decision for a whole request, as the dispatcher takes it (the API's access rule,
 * decided by the ACLs and reported to the audit log), for a handler that answers a request
 * itself instead of passing it on.
 */
public interface AccessDecision {

    /** Why {@code request} is refused to {@code client}, or null when it may go on. */
    ApiException refusal(RequestFrame request, ClientContext client) throws MalformedRequestException;
}
