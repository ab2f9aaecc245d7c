package io.leasehold.proxy.dispatch;

import io.leasehold.proxy.backend.BackendSession;
import io.leasehold.proxy.backend.Failures;
import io.leasehold.proxy.owners.OwnerLookup;
import io.leasehold.proxy.owners.Route;
import io.leasehold.proxy.protocol.KafkaMessages;
import io.leasehold.proxy.versions.VersionBridge;
import io.leasehold.routing.snapshot.BrokerAddress;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersionCollection;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The proxy's own ApiVersions answer: for each API it serves, the versions it can serve to a
 * client given what every live backend supports: its own range, narrowed only to the versions a
 * {@link VersionBridge} can bridge to a version all backends support. Every known broker is asked;
 * brokers that do not answer are left out until the next refresh. A backend entry with a negative
 * range (KafScale lists unsupported APIs as {@code -1..-1}) or no entry at all drops the API,
 * since any broker may receive any request.
 */
final class ApiVersionsService {
    private static final Logger LOG = LoggerFactory.getLogger(ApiVersionsService.class);
    /** Version used to ask backends: carries the feature levels, and every broker since Kafka 2.4 speaks it. */
    private static final short BACKEND_QUERY_VERSION = 3;

    /** The intersected answer and when it was made. */
    private record Known(ApiVersionsResponseData answer, VersionBridge bridge, long fetchedAtNanos) {
    }

    private final BackendSession backends;
    private final OwnerLookup router;
    private final RoutePolicy policy;
    private final ByteBufAllocator alloc;
    private final long maxAgeNanos;
    private final AtomicReference<Known> known = new AtomicReference<>();
    private final AtomicReference<CompletableFuture<ApiVersionsResponseData>> refreshing = new AtomicReference<>();

    ApiVersionsService(BackendSession backends, OwnerLookup router, RoutePolicy policy, ByteBufAllocator alloc,
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

    /** How to bridge client versions to the backends' ranges as last learned; no bridging before the first answer. */
    VersionBridge bridge() {
        Known current = known.get();
        return current != null ? current.bridge() : VersionBridge.none();
    }

    /** True if {@code version} of {@code api} is within what the proxy currently advertises. */
    CompletableFuture<Boolean> isAdvertised(ApiKeys api, short version) {
        return answer().thenApply(answer -> {
            ApiVersion v = answer.apiKeys().find(api.id);
            return v != null && version >= v.minVersion() && version <= v.maxVersion();
        });
    }

    /** The version range of each forwarded API that every backend in {@code answers} supports; APIs some lack are left out. */
    private VersionBridge bridgeFor(List<ApiVersionsResponseData> answers) {
        Map<ApiKeys, VersionBridge.Range> ranges = new EnumMap<>(ApiKeys.class);
        for (Map.Entry<ApiKeys, Route> e : policy.routes().entrySet()) {
            if (e.getValue() == Route.LOCAL) {
                continue;
            }
            ApiKeys api = e.getKey();
            short min = Short.MIN_VALUE;
            short max = Short.MAX_VALUE;
            for (ApiVersionsResponseData backend : answers) {
                ApiVersion theirs = backend.apiKeys().find(api.id);
                if (theirs == null || theirs.minVersion() < 0 || theirs.maxVersion() < 0) {
                    max = -1;
                    break;
                }
                min = (short) Math.max(min, theirs.minVersion());
                max = (short) Math.min(max, theirs.maxVersion());
            }
            if (min <= max) {
                ranges.put(api, new VersionBridge.Range(min, max));
            }
        }
        return VersionBridge.to(ranges);
    }

    /**
     * What the proxy serves: for each API its own range, narrowed to the versions {@code bridge}
     * can serve; forwarded APIs the backends do not all support are dropped. Versions must form one
     * range, so it is the longest run of servable versions ending at the highest one. Features come
     * from the first answer.
     */
    private ApiVersionsResponseData advertised(List<ApiVersionsResponseData> answers, VersionBridge bridge) {
        ApiVersionCollection keys = new ApiVersionCollection();
        for (Map.Entry<ApiKeys, Route> e : policy.routes().entrySet()) {
            ApiKeys api = e.getKey();
            if (e.getValue() != Route.LOCAL && !bridge.supports(api)) {
                continue;
            }
            short max = policy.maxVersion(api);
            while (max >= policy.minVersion(api) && !bridge.canServe(api, max)) {
                max--;
            }
            short min = max;
            while (min > policy.minVersion(api) && bridge.canServe(api, (short) (min - 1))) {
                min--;
            }
            if (max >= policy.minVersion(api)) {
                keys.add(new ApiVersion().setApiKey(api.id).setMinVersion(min).setMaxVersion(max));
            }
        }
        ApiVersionsResponseData first = answers.get(0);
        return new ApiVersionsResponseData()
                .setApiKeys(keys)
                .setSupportedFeatures(first.supportedFeatures().duplicate())
                .setFinalizedFeatures(first.finalizedFeatures().duplicate())
                .setFinalizedFeaturesEpoch(first.finalizedFeaturesEpoch());
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
        List<BrokerAddress> brokers = router.liveBrokers(router.snapshot());
        List<CompletableFuture<ApiVersionsResponseData>> asked = new ArrayList<>(brokers.size());
        for (BrokerAddress broker : brokers) {
            asked.add(ask(broker));
        }
        CompletableFuture.allOf(asked.toArray(CompletableFuture[]::new)).handle((ignored, anyError) -> {
            List<ApiVersionsResponseData> answers = new ArrayList<>(asked.size());
            Throwable lastError = null;
            for (int i = 0; i < asked.size(); i++) {
                CompletableFuture<ApiVersionsResponseData> one = asked.get(i);
                if (one.isCompletedExceptionally()) {
                    lastError = Failures.unwrap(one.handle((r, e) -> e).join());
                    LOG.debug("broker {} left out of the ApiVersions intersection: {}", brokers.get(i).id(), lastError.toString());
                } else {
                    answers.add(one.join());
                }
            }
            refreshing.set(null);
            if (answers.isEmpty()) {
                mine.completeExceptionally(lastError != null ? lastError
                        : new IllegalStateException("no backend broker is known to ask for ApiVersions"));
            } else {
                VersionBridge bridge = bridgeFor(answers);
                ApiVersionsResponseData answer = advertised(answers, bridge);
                known.set(new Known(answer, bridge, System.nanoTime()));
                mine.complete(answer);
            }
            return null;
        });
        return current != null ? CompletableFuture.completedFuture(current.answer()) : mine;
    }

    private CompletableFuture<ApiVersionsResponseData> ask(BrokerAddress broker) {
        ApiVersionsRequestData request = new ApiVersionsRequestData()
                .setClientSoftwareName("leasehold-proxy").setClientSoftwareVersion("1");
        ByteBuf frame = KafkaMessages.encodeRequest(alloc, ApiKeys.API_VERSIONS, BACKEND_QUERY_VERSION, "leasehold-proxy",
                request);
        return backends.send(broker, frame).thenApply(response -> {
            try {
                ApiVersionsResponseData answer = KafkaMessages.decodeResponse(response, ApiKeys.API_VERSIONS,
                        BACKEND_QUERY_VERSION);
                if (answer.errorCode() != Errors.NONE.code()) {
                    throw new IllegalStateException("broker " + broker.id() + " answered ApiVersions with "
                            + Errors.forCode(answer.errorCode()));
                }
                return answer;
            } finally {
                response.release();
            }
        });
    }
}
