package io.leasehold.proxy.exchange;

import io.github.resilience4j.retry.Retry;
import io.leasehold.proxy.admin.ProxyMetrics;
import io.leasehold.proxy.logging.WarningRateLimiter;
import io.leasehold.proxy.owners.OwnerLookup;
import io.leasehold.proxy.protocol.RequestFrame;
import io.leasehold.proxy.request.ClientContext;
import io.leasehold.proxy.request.MemoryBudget;
import io.leasehold.proxy.versions.VersionBridge;
import io.netty.channel.EventLoop;
import io.netty.util.Attribute;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCounted;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs partition-keyed requests: resolves topic ids to names, then hands the request to a
 * {@link PartitionedExchange} (which answers the entries {@link EntryAccess} refuses itself) under the API's retry policy, in the backend version the
 * {@link VersionBridge} picks for the client's version.
 */
public final class PartitionedRequestRunner {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionedRequestRunner.class);
    /**
     * Partitions are retried for as long as the request's {@link RetryBudget} allows, not a count
     * of attempts: while ownership moves quickly (a rebalance, an owner's lease running out) a few
     * attempts can all meet a route that just changed, and a rejection handed to the client makes
     * a producer that is not idempotent resend behind later batches, out of order. The backoff
     * bounds how often one request is tried.
     */
    private static final int UNCOUNTED_ATTEMPTS = Integer.MAX_VALUE;
    private static final AttributeKey<ReadAheads> READ_AHEADS = AttributeKey.valueOf(ReadAheads.class.getName());

    /**
     * How reads are read ahead (see {@link ReadAheads}).
     *
     * @param budget where held answers are counted
     * @param idle   how long an answer is held for a read that does not come
     */
    public record ReadAhead(MemoryBudget budget, Duration idle) {
    }
    private final OwnerLookup router;
    private final TopicNameResolver topicIds;
    private final RetryFactory retries;
    private final ProxyMetrics metrics;
    private final Duration defaultRetryBudget;
    private final RetriesGivenUp givenUp;
    private final Map<ApiKeys, Retry> retryByApi = new ConcurrentHashMap<>();
    private final Supplier<VersionBridge> bridges;
    /** Null: reads are not read ahead. */
    private final ReadAhead readAhead;

    /** @param readAhead how reads are read ahead; null for not at all */
    public PartitionedRequestRunner(OwnerLookup router, TopicNameResolver topicIds, RetryFactory retries,
            ProxyMetrics metrics,
                     Duration defaultRetryBudget, Supplier<VersionBridge> bridges, ReadAhead readAhead) {
        this.readAhead = readAhead;
        this.bridges = bridges;
        this.router = router;
        this.topicIds = topicIds;
        this.retries = retries;
        this.metrics = metrics;
        this.defaultRetryBudget = defaultRetryBudget;
        this.givenUp = new RetriesGivenUp(LOG, metrics, WarningRateLimiter.perSecond());
    }

    /** Runs {@code request}; the entries {@code access} refuses are answered with its error and not sent. */
    public <Q extends ApiMessage, R extends ApiMessage, T, E, P> CompletableFuture<ReferenceCounted> execute(
            PartitionedApi<Q, R, T, E, P> api, RequestFrame frame, Q request, ClientContext client,
            EntryAccess access) {
        RetryBudget budget = new RetryBudget(api.retryBudget(request, defaultRetryBudget), retries.maxBackoff());
        PartitionedExchange<Q, R, T, E, P> exchange =
                new PartitionedExchange<>(api, frame, request, client, router, metrics, givenUp, budget,
                        bridges.get().target(api.apiKey(), frame.version()),
                        api.readsAhead().isPresent() ? readAheads(client) : null);
        Retry retry = retryByApi.computeIfAbsent(api.apiKey(), key -> retries.<PartitionedExchange.Attempt<T, E>>create(
                "partitions-" + key.name, PartitionedExchange.Attempt::worthRetrying, UNCOUNTED_ATTEMPTS));
        Set<Uuid> ids = topicIds(api, request);
        EventLoop loop = client.backends().eventLoop();
        if (ids.isEmpty() && loop.inEventLoop()) {
            // Topics named, and already on the connection's loop: start now rather than queue a task for it.
            try {
                return start(exchange, frame, Map.of(), access, retry);
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
        }
        CompletableFuture<Map<Uuid, String>> names = ids.isEmpty()
                ? CompletableFuture.completedFuture(Map.of()) : topicIds.resolve(ids);
        return names.handleAsync((resolved, error) -> start(exchange, frame, error == null ? resolved : Map.of(),
                access, retry), loop).thenCompose(f -> f);
    }

    private static <Q extends ApiMessage, R extends ApiMessage, T, E, P> CompletableFuture<ReferenceCounted> start(
            PartitionedExchange<Q, R, T, E, P> exchange, RequestFrame frame, Map<Uuid, String> topicNames,
            EntryAccess access, Retry retry) {
        List<PartitionedExchange.Entry<T, E>> entries;
        try {
            entries = exchange.entries(topicNames, access);
        } catch (RuntimeException e) {
            // A request the exchange cannot even list (say, an illegal partition id) ends here.
            frame.release();
            throw e;
        }
        return exchange.run(entries, retry);
    }

    /** The topic ids the request names (none when its version names topics). */
    private static <Q extends ApiMessage, T> Set<Uuid> topicIds(PartitionedApi<Q, ?, T, ?, ?> api, Q request) {
        Set<Uuid> ids = Set.of();
        for (T topic : api.topics(request)) {
            Uuid id = api.topicId(topic);
            if (!Uuid.ZERO_UUID.equals(id)) {
                if (ids.isEmpty()) {
                    ids = new HashSet<>();
                }
                ids.add(id);
            }
        }
        return ids;
    }

    /** The connection's reads ahead, made on its first read and dropped when it closes. */
    private ReadAheads readAheads(ClientContext client) {
        if (readAhead == null || client.channel() == null) {
            return null;
        }
        Attribute<ReadAheads> attribute = client.channel().attr(READ_AHEADS);
        ReadAheads existing = attribute.get();
        if (existing != null) {
            return existing;
        }
        ReadAheads created = new ReadAheads(client.backends(), readAhead.budget(), readAhead.idle());
        existing = attribute.setIfAbsent(created);
        if (existing != null) {
            return existing;
        }
        client.channel().closeFuture().addListener(f -> client.backends().eventLoop().execute(created::close));
        return created;
    }
}
