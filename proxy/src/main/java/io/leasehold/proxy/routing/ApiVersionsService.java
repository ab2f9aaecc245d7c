package io.leasehold.proxy.routing;

import io.leasehold.proxy.backend.BackendSession;
import io.leasehold.proxy.protocol.KafkaMessages;
import io.netty.buffer.ByteBufAllocator;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersionCollection;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * The proxy's own ApiVersions answer: for each API it serves, the versions both it and the
 * backends support. Backend versions are asked from a live broker and remembered for a while.
 */
final class ApiVersionsService {
    /** Version used to ask backends: carries the feature levels, and every broker since Kafka 2.4 speaks it. */
    private static final short BACKEND_QUERY_VERSION = 3;

    /** The backend's answer, already intersected with what the proxy serves. */
    private record Known(ApiVersionsResponseData answer, long fetchedAtNanos) {
    }

    private final BackendSession backends;
    private final OwnerRouter router;
    private final RoutePolicy policy;
    private final ByteBufAllocator alloc;
    private final long maxAgeNanos;
    private final AtomicReference<Known> known = new AtomicReference<>();
    private final AtomicReference<CompletableFuture<ApiVersionsResponseData>> refreshing = new AtomicReference<>();
    private final AtomicInteger spread = new AtomicInteger();

    ApiVersionsService(BackendSession backends, OwnerRouter router, RoutePolicy policy, ByteBufAllocator alloc,
                       Duration maxAge) {
        this.backends = backends;
        this.router = router;
        this.policy = policy;
        this.alloc = alloc;
        this.maxAgeNanos = maxAge.toNanos();
    }

    /** The answer to a client's ApiVersions request; shared, so callers must not modify it. */
    CompletableFuture<ApiVersionsResponseData> answer() {
        return knownAnswer();
    }

    /** The answer for a client that asked in a version the proxy cannot read (sent as v0). */
    ApiVersionsResponseData unsupportedVersion() {
        ApiVersionCollection keys = new ApiVersionCollection();
        keys.add(new ApiVersion().setApiKey(ApiKeys.API_VERSIONS.id)
                .setMinVersion(ApiKeys.API_VERSIONS.oldestVersion())
                .setMaxVersion(ApiKeys.API_VERSIONS.latestVersion()));
        return new ApiVersionsResponseData().setErrorCode(Errors.UNSUPPORTED_VERSION.code()).setApiKeys(keys);
    }

    /** True if {@code version} of {@code api} is within what the proxy currently advertises. */
    CompletableFuture<Boolean> isAdvertised(ApiKeys api, short version) {
        return answer().thenApply(answer -> {
            ApiVersion v = answer.apiKeys().find(api.id);
            return v != null && version >= v.minVersion() && version <= v.maxVersion();
        });
    }

    private ApiVersionsResponseData intersect(ApiVersionsResponseData backend) {
        ApiVersionCollection keys = new ApiVersionCollection();
        for (Map.Entry<ApiKeys, Route> e : policy.routes().entrySet()) {
            ApiKeys api = e.getKey();
            short min = policy.minVersion(api);
            short max = policy.maxVersion(api);
            if (e.getValue() != Route.LOCAL) {
                ApiVersion theirs = backend.apiKeys().find(api.id);
                if (theirs == null) {
                    continue;
                }
                min = (short) Math.max(min, theirs.minVersion());
                max = (short) Math.min(max, theirs.maxVersion());
            }
            if (min <= max) {
                keys.add(new ApiVersion().setApiKey(api.id).setMinVersion(min).setMaxVersion(max));
            }
        }
        return new ApiVersionsResponseData()
                .setApiKeys(keys)
                .setSupportedFeatures(backend.supportedFeatures().duplicate())
                .setFinalizedFeatures(backend.finalizedFeatures().duplicate())
                .setFinalizedFeaturesEpoch(backend.finalizedFeaturesEpoch());
    }

    private CompletableFuture<ApiVersionsResponseData> knownAnswer() {
        Known current = known.get();
        if (current != null && System.nanoTime() - current.fetchedAtNanos() < maxAgeNanos) {
            return CompletableFuture.completedFuture(current.answer());
        }
        CompletableFuture<ApiVersionsResponseData> mine = new CompletableFuture<>();
        CompletableFuture<ApiVersionsResponseData> running = refreshing.compareAndExchange(null, mine);
        if (running != null) {
            return current != null ? CompletableFuture.completedFuture(current.answer()) : running;
        }
        ApiVersionsRequestData request = new ApiVersionsRequestData()
                .setClientSoftwareName("leasehold-proxy").setClientSoftwareVersion("1");
        backends.sendToAny(router.anyBrokerOrder(spread.getAndIncrement()), () -> KafkaMessages.encodeRequest(alloc,
                        ApiKeys.API_VERSIONS, BACKEND_QUERY_VERSION, "leasehold-proxy", request))
                .thenApply(frame -> {
                    try {
                        ApiVersionsResponseData response =
                                KafkaMessages.decodeResponse(frame, ApiKeys.API_VERSIONS, BACKEND_QUERY_VERSION);
                        if (response.errorCode() != Errors.NONE.code()) {
                            throw new IllegalStateException("backend answered ApiVersions with "
                                    + Errors.forCode(response.errorCode()));
                        }
                        return intersect(response);
                    } finally {
                        frame.release();
                    }
                })
                .whenComplete((answer, error) -> {
                    refreshing.set(null);
                    if (error != null) {
                        mine.completeExceptionally(error);
                    } else {
                        known.set(new Known(answer, System.nanoTime()));
                        mine.complete(answer);
                    }
                });
        return current != null ? CompletableFuture.completedFuture(current.answer()) : mine;
    }
}
