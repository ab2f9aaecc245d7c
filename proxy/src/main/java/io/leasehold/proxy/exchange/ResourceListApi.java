package io.leasehold.proxy.exchange;

import java.util.Collection;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.ApiError;

/**
 * How one admin API lists its resources, in the request and in the answer, so that a
 * {@link ResourceSplit} can send part of a request on and answer the rest itself. Each API's
 * generated classes differ; this is the little the split needs to know of them.
 *
 * @param <Q> the request data
 * @param <R> the response data
 * @param <E> one resource of the request
 * @param <A> one resource's result in the response
 */
public interface ResourceListApi<Q extends ApiMessage, R extends ApiMessage, E, A> {

    /** The request's resources, in order; removing from it removes them from the request. */
    Collection<E> resources(Q request);

    /** An answer holding no results yet (for a request the proxy answers whole). */
    R emptyResponse();

    /** The answer's results; the split replaces them with the merged ones. */
    Collection<A> results(R response);

    /** Whether {@code result} is the broker's answer about {@code resource}. */
    boolean answers(A result, E resource);

    /** The result telling the client that {@code resource} was refused with {@code error}. */
    A refused(E resource, ApiError error);
}
