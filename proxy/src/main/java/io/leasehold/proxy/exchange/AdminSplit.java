package io.leasehold.proxy.exchange;

import org.apache.kafka.common.protocol.ApiMessage;

/**
 * An admin request decided resource by resource (see {@link ResourceSplit}), seen without its
 * generated classes so that the router can forward the allowed part and merge the answer.
 */
public interface AdminSplit {

    /** True when every resource may go on: the request is forwarded as the client sent it. */
    boolean allAllowed();

    /** True when no resource may go on: the proxy answers the request itself. */
    boolean noneAllowed();

    /** A copy of the request holding only the allowed resources. */
    ApiMessage allowedPart();

    /**
     * The answer to the whole request, built on {@code brokerAnswer} (the decoded answer to
     * {@link #allowedPart()}, which this takes over) or, when it is null, on an empty one.
     */
    ApiMessage answer(ApiMessage brokerAnswer);
}
