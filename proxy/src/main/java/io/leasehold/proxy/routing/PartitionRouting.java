package io.leasehold.proxy.routing;

import io.github.resilience4j.retry.Retry;
import io.leasehold.proxy.admin.ProxyMetrics;
import io.leasehold.proxy.frontend.ClientContext;
import io.leasehold.proxy.protocol.RequestFrame;
import io.netty.util.ReferenceCounted;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Runs partition-keyed requests: resolves topic ids to names, then hands the request to a
 * {@link PartitionedExchange} (which answers the entries {@link EntryAccess} refuses itself) under the API's retry policy, in the backend version the
 * {@link VersionBridge} picks for the client's version.
 */
final class PartitionRouting {
    private final OwnerRouter router;
    private final TopicNameResolver topicIds;
    private final RetryFactory retries;
    private final ProxyMetrics metrics;
    private final Duration defaultRetryBudget;
    private final Map<ApiKeys, Retry> retryByApi = new ConcurrentHashMap<>();
    private final Supplier<VersionBridge> bridges;

    PartitionRouting(OwnerRouter router, TopicNameResolver topicIds, RetryFactory retries, ProxyMetrics metrics,
                     Duration defaultRetryBudget, Supplier<VersionBridge> bridges) {
        this.bridges = bridges;
        this.router = router;
        this.topicIds = topicIds;
        this.retries = retries;
        this.metrics = metrics;
        this.defaultRetryBudget = defaultRetryBudget;
    }

    /** Runs {@code request} with every entry sent on. */
    <Q extends ApiMessage, R extends ApiMessage, T, E, P> CompletableFuture<ReferenceCounted> execute(
            PartitionedApi<Q, R, T, E, P> api, RequestFrame frame, Q request, ClientContext client) {
        return execute(api, frame, request, client, EntryAccess.everything());
    }

    /** Runs {@code request}; the entries {@code access} refuses are answered with its error and not sent. */
    <Q extends ApiMessage, R extends ApiMessage, T, E, P> CompletableFuture<ReferenceCounted> execute(
            PartitionedApi<Q, R, T, E, P> api, RequestFrame frame, Q request, ClientContext client,
            EntryAccess access) {
        RetryBudget budget = new RetryBudget(api.retryBudget(request, defaultRetryBudget), retries.maxBackoff());
        PartitionedExchange<Q, R, T, E, P> exchange =
                new PartitionedExchange<>(api, frame, request, client, router, metrics, budget,
                        bridges.get().target(api.apiKey(), frame.version()));
        Set<Uuid> ids = api.topics(request).stream().map(api::topicId)
                .filter(id -> !Uuid.ZERO_UUID.equals(id)).collect(Collectors.toSet());
        Retry retry = retryByApi.computeIfAbsent(api.apiKey(), key -> retries.<PartitionedExchange.Attempt<T, E>>create(
                "partitions-" + key.name, PartitionedExchange.Attempt::worthRetrying));
        CompletableFuture<Map<Uuid, String>> names = ids.isEmpty()
                ? CompletableFuture.completedFuture(Map.of()) : topicIds.resolve(ids);
        return names.handleAsync((resolved, error) -> {
            List<PartitionedExchange.Entry<T, E>> entries;
            try {
                entries = exchange.entries(error == null ? resolved : Map.of(), access);
            } catch (RuntimeException e) {
                // A request the exchange cannot even list (say, an illegal partition id) ends here.
                frame.release();
                throw e;
            }
            return exchange.run(entries, retry);
        }, client.backends().eventLoop()).thenCompose(f -> f);
    }
}
