package io.leasehold.proxy.presentation;

import io.leasehold.proxy.backend.BackendSession;
import io.leasehold.proxy.exchange.TopicNameResolver;
import io.leasehold.proxy.owners.OwnerLookup;
import io.leasehold.proxy.protocol.KafkaMessages;
import io.leasehold.proxy.versions.FirstVersions;
import io.leasehold.proxy.versions.VersionBridge;
import io.netty.buffer.ByteBufAllocator;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * Topic metadata from the backends, shown as the {@link ClusterPresentation} says: backend
 * answers are cached for a short time per (version, request), and concurrent identical requests
 * share one backend round trip; each caller gets its own copy rewritten from the routing
 * snapshot current at that moment, so leaders follow ownership without waiting for the cache. At most {@value #MAX_CACHED} answers are kept. Every answer also feeds the topic
 * id → name map. A version the backends do not support is asked in the version the
 * {@link VersionBridge} picks; the answer is data, encoded in the client's version by the caller.
 */
public final class MetadataService implements TopicNameResolver {
    /** Metadata version used to learn topic ids (first version with ids everywhere we need them). */
    private static final short TOPIC_ID_VERSION = 12;
    private static final int MAX_CACHED = 256;

    private record Key(short version, MetadataRequestData request) {
    }

    private record Cached(CompletableFuture<MetadataResponseData> response, long expiresAtNanos) {
        boolean fresh(long now) {
            return now - expiresAtNanos < 0;
        }
    }

    private final BackendSession backends;
    private final OwnerLookup router;
    private final ClusterPresentation presentation;
    private final ByteBufAllocator alloc;
    private final long maxAgeNanos;
    private final Map<Key, Cached> cache = new ConcurrentHashMap<>();
    private final AtomicReference<Map<Uuid, String>> topicNames = new AtomicReference<>(Map.of());
    private final AtomicInteger spread = new AtomicInteger();
    private final Supplier<VersionBridge> bridges;

    public MetadataService(BackendSession backends, OwnerLookup router, ClusterPresentation presentation,
            ByteBufAllocator alloc,
                    Duration maxAge, Supplier<VersionBridge> bridges) {
        this.bridges = bridges;
        this.backends = backends;
        this.router = router;
        this.presentation = presentation;
        this.alloc = alloc;
        this.maxAgeNanos = maxAge.toNanos();
    }

    /** The presented answer to {@code request} in {@code version}, the caller's own copy. */
    public CompletableFuture<MetadataResponseData> metadata(MetadataRequestData request, short version) {
        return backendAnswer(request, version).thenApply(presentation::present);
    }

    /** The backend's answer, cached and shared: callers must not modify it. */
    private CompletableFuture<MetadataResponseData> backendAnswer(MetadataRequestData request, short version) {
        long now = System.nanoTime();
        Key key = new Key(version, request);
        Cached cached = cache.get(key);
        if (cached != null && cached.fresh(now)) {
            return cached.response();
        }
        CompletableFuture<MetadataResponseData> created = new CompletableFuture<>();
        Cached mine = new Cached(created, now + maxAgeNanos);
        Cached winner = cache.compute(key, (k, existing) -> existing != null && existing.fresh(now) ? existing : mine);
        if (winner != mine) {
            return winner.response();
        }
        if (cache.size() > MAX_CACHED) {
            evict(now);
        }
        CompletableFuture<MetadataResponseData> fetched;
        try {
            fetched = fetch(request, version);
        } catch (RuntimeException e) {
            fetched = CompletableFuture.failedFuture(e);
        }
        // A failed answer leaves the cache at once, so the next identical request asks again
        // instead of sharing a failure (or, were it never completed, waiting forever).
        fetched.whenComplete((response, error) -> {
            if (error != null) {
                cache.remove(key, mine);
                created.completeExceptionally(error);
            } else {
                created.complete(response);
            }
        });
        return created;
    }

    /**
     * The answer when no broker answered {@code request} (none reachable, or all failing, e.g.
     * brokers that read metadata from etcd while etcd is down): this proxy as the only broker and
     * every requested topic {@code LEADER_NOT_AVAILABLE}, which every client retries, so clients
     * keep their connection (kcat exits once all its broker connections are down) and ask again.
     * Not cached.
     */
    public MetadataResponseData noBrokerAnswered(MetadataRequestData request) {
        MetadataResponseData response = new MetadataResponseData();
        if (request.topics() != null) {
            for (MetadataRequestData.MetadataRequestTopic topic : request.topics()) {
                response.topics().add(new MetadataResponseData.MetadataResponseTopic()
                        .setName(topic.name())
                        .setTopicId(topic.topicId())
                        .setErrorCode(Errors.LEADER_NOT_AVAILABLE.code()));
            }
        }
        return presentation.present(response);
    }

    /** Drops expired answers, then, while still over the cap, the oldest ones: many distinct requests cannot grow it. */
    private void evict(long now) {
        cache.entrySet().removeIf(e -> !e.getValue().fresh(now));
        int excess = cache.size() - MAX_CACHED;
        if (excess > 0) {
            cache.entrySet().stream()
                    .sorted(Comparator.comparingLong(e -> e.getValue().expiresAtNanos() - now))
                    .limit(excess)
                    .toList()
                    .forEach(e -> cache.remove(e.getKey(), e.getValue()));
        }
    }

    /** Answers cached now, fresh or not yet evicted. */
    public int cachedAnswers() {
        return cache.size();
    }

    private CompletableFuture<MetadataResponseData> fetch(MetadataRequestData request, short clientVersion) {
        short version = backendVersion(request, clientVersion);
        return backends.sendToAny(router.anyBrokerOrder(spread.getAndIncrement()),
                () -> KafkaMessages.encodeRequest(alloc, ApiKeys.METADATA, version, "leasehold-proxy", request))
                .thenApply(frame -> {
                    try {
                        MetadataResponseData response = KafkaMessages.decodeResponse(frame, ApiKeys.METADATA, version);
                        learnTopicIds(response);
                        return response;
                    } finally {
                        frame.release();
                    }
                });
    }

    /**
     * The version the backends are asked in: the bridge's choice, but at least the first version
     * that can say "do not create" when auto-creation is off (below it, asking names a topic to
     * create), so a v0-3 client without CREATE creates nothing.
     */
    private short backendVersion(MetadataRequestData request, short clientVersion) {
        VersionBridge bridge = bridges.get();
        short version = bridge.target(ApiKeys.METADATA, clientVersion);
        // Backends that cannot take the first such version keep the client's: the request then
        // cannot be written, and fails its callers rather than asking for a topic to be created.
        if (!request.allowAutoTopicCreation() && version < FirstVersions.METADATA_WITHOUT_CREATION
                && bridge.canServe(ApiKeys.METADATA, FirstVersions.METADATA_WITHOUT_CREATION)) {
            return bridge.target(ApiKeys.METADATA, FirstVersions.METADATA_WITHOUT_CREATION);
        }
        return version;
    }

    private void learnTopicIds(MetadataResponseData response) {
        Map<Uuid, String> learned = new HashMap<>();
        for (MetadataResponseData.MetadataResponseTopic topic : response.topics()) {
            if (topic.name() != null && !Uuid.ZERO_UUID.equals(topic.topicId())) {
                learned.put(topic.topicId(), topic.name());
            }
        }
        if (!learned.isEmpty()) {
            topicNames.updateAndGet(current -> {
                Map<Uuid, String> next = new HashMap<>(current);
                next.putAll(learned);
                return Map.copyOf(next);
            });
        }
    }

    /**
     * Which of {@code names} the backends do not know (UNKNOWN_TOPIC_OR_PARTITION), asked without
     * creating any; when they cannot be asked, none, so that callers keep the answer that reveals least.
     */
    public CompletableFuture<Set<String>> unknownTopics(Set<String> names) {
        MetadataRequestData request = new MetadataRequestData().setAllowAutoTopicCreation(false);
        names.stream().sorted().forEach(name -> request.topics().add(
                new MetadataRequestData.MetadataRequestTopic().setName(name)));
        return backendAnswer(request, TOPIC_ID_VERSION).handle((response, error) -> response == null ? Set.of()
                : response.topics().stream()
                        .filter(topic -> topic.errorCode() == Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                        .map(MetadataResponseData.MetadataResponseTopic::name)
                        .collect(Collectors.toUnmodifiableSet()));
    }

    @Override
    public CompletableFuture<Map<Uuid, String>> resolve(Set<Uuid> ids) {
        if (topicNames.get().keySet().containsAll(ids)) {
            return CompletableFuture.completedFuture(topicNames.get());
        }
        MetadataRequestData allTopics = new MetadataRequestData().setTopics(null).setAllowAutoTopicCreation(false);
        return backendAnswer(allTopics, TOPIC_ID_VERSION).handle((r, e) -> topicNames.get());
    }
}
