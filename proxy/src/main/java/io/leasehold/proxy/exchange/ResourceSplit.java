package io.leasehold.proxy.exchange;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.function.Function;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.ApiError;

/**
 * An admin request cut into the resources its principal may act on and those it may not, as a
 * Kafka broker answers it: the allowed part is carried out, each refused resource gets its own
 * error, and the answer lists every resource in the request's order.
 *
 * @param <Q> the request data
 * @param <R> the response data
 * @param <E> one resource of the request
 * @param <A> one resource's result in the response
 */
public final class ResourceSplit<Q extends ApiMessage, R extends ApiMessage, E, A> implements AdminSplit {
    private final ResourceListApi<Q, R, E, A> api;
    private final Q request;
    private final List<E> resources;
    private final List<ApiError> refusals;

    private ResourceSplit(ResourceListApi<Q, R, E, A> api, Q request, List<E> resources, List<ApiError> refusals) {
        this.api = api;
        this.request = request;
        this.resources = resources;
        this.refusals = refusals;
    }

    /**
     * Decides every resource of {@code request}.
     *
     * @param refusal the error a resource is refused with, or null when it may go on
     */
    public static <Q extends ApiMessage, R extends ApiMessage, E, A> ResourceSplit<Q, R, E, A> of(
            ResourceListApi<Q, R, E, A> api, Q request, Function<E, ApiError> refusal) {
        List<E> resources = List.copyOf(api.resources(request));
        List<ApiError> refusals = new ArrayList<>(resources.size());
        for (E resource : resources) {
            refusals.add(refusal.apply(resource));
        }
        return new ResourceSplit<>(api, request, resources, refusals);
    }

    @Override
    public boolean allAllowed() {
        return refusals.stream().allMatch(r -> r == null);
    }

    @Override
    public boolean noneAllowed() {
        return refusals.stream().noneMatch(r -> r == null);
    }

    @Override
    @SuppressWarnings("unchecked")
    public Q allowedPart() {
        Q part = (Q) request.duplicate();
        Iterator<E> kept = api.resources(part).iterator();
        for (ApiError refusal : refusals) {
            kept.next();
            if (refusal != null) {
                kept.remove();
            }
        }
        return part;
    }

    /**
     * Every resource's result in the request's order: the refused ones from the proxy, the others
     * from {@code brokerAnswer} (the answer to {@link #allowedPart()}, or null when nothing was
     * sent). Results the broker gave that match no resource are kept, at the end.
     */
    @Override
    @SuppressWarnings("unchecked")
    public R answer(ApiMessage brokerAnswer) {
        R response = brokerAnswer == null ? api.emptyResponse() : (R) brokerAnswer;
        Collection<A> results = api.results(response);
        List<A> answered = new ArrayList<>(results);
        List<A> merged = new ArrayList<>(resources.size());
        for (int i = 0; i < resources.size(); i++) {
            E resource = resources.get(i);
            if (refusals.get(i) != null) {
                merged.add(api.refused(resource, refusals.get(i)));
                continue;
            }
            for (Iterator<A> candidates = answered.iterator(); candidates.hasNext(); ) {
                A result = candidates.next();
                if (api.answers(result, resource)) {
                    merged.add(result);
                    candidates.remove();
                    break;
                }
            }
        }
        merged.addAll(answered);
        // Emptied through the iterator: generated result collections accept an element again
        // only once it has been unlinked that way (clear() leaves its links in place).
        for (Iterator<A> old = results.iterator(); old.hasNext(); ) {
            old.next();
            old.remove();
        }
        results.addAll(merged);
        return response;
    }
}
