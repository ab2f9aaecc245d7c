package io.leasehold.proxy.versions;

import io.leasehold.proxy.protocol.ErrorResponder;
import io.leasehold.proxy.protocol.KafkaMessages;
import io.leasehold.proxy.protocol.RequestFrame;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.EnumMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which version the proxy speaks to its backends for the version a client chose, and the
 * conversion between the two with the kafka-clients generated message classes. An immutable
 * snapshot of the version ranges every live backend supports, replaced on each ApiVersions refresh.
 *
 * <p>The rule: a version every backend supports is used as it is (no bridging, no cost). Otherwise
 * the nearest version every backend supports is used (the lowest supported one for an older client,
 * the highest for a newer one), but only within the client version's compatibility segment: some
 * versions change what a request means, not just its fields (message format v2 records, topic ids
 * instead of names, the two-step JoinGroup member id, batched LeaveGroup members), and the proxy
 * does not translate across those. And every request field the client's version has must exist in
 * the target too ({@link RequestFieldCoverage}), apart from the few the bridge resets on purpose:
 * otherwise a client that sets it gets UNSUPPORTED_VERSION for a version the proxy advertised
 * (DeleteTopics v6 names topics in a {@code topics} array that v0-v5 lack). A version with no such
 * target is not bridgeable and is not advertised. This is the one place that decides it, per API.
 */
public final class VersionBridge {

    /** An inclusive version range every live backend supports. */
    public record Range(short min, short max) {
    }

    /**
     * First versions of each segment, per API. Produce v3 and Fetch v4 start message format v2
     * records; Fetch v13, OffsetCommit v10 and OffsetFetch v10 name topics by id; JoinGroup v4 makes
     * members ask for a member id first; LeaveGroup v3 batches members; OffsetFetch v8 names several
     * groups (routed differently); ListOffsets v1 drops the v0 offsets array; Metadata v1 reads an
     * empty topic list as "none" where v0 read it as "all".
     */
    private static final Map<ApiKeys, short[]> SEGMENT_STARTS = segmentStarts();

    private static final Logger LOG = LoggerFactory.getLogger(VersionBridge.class);
    /** First OffsetFetch version with {@code requireStable}. */
    private static final short OFFSET_FETCH_REQUIRE_STABLE = 7;
    /**
     * Request fields the bridge resets before encoding in a version that lacks them (see
     * {@link #dropFieldsTargetLacks}), so their absence in the target does not block bridging.
     */
    private static final Map<ApiKeys, Set<String>> RESET_FIELDS = Map.of(ApiKeys.OFFSET_FETCH, Set.of("require_stable"));

    private final Map<ApiKeys, Range> backends;

    private VersionBridge(Map<ApiKeys, Range> backends) {
        this.backends = backends;
    }

    /** A bridge that knows no backend range yet: every request goes out in the client's version. */
    public static VersionBridge none() {
        return new VersionBridge(Map.of());
    }

    /** A bridge to backends that all support {@code ranges} (APIs not listed are forwarded unchanged). */
    public static VersionBridge to(Map<ApiKeys, Range> ranges) {
        return new VersionBridge(Map.copyOf(ranges));
    }

    /**
     * The version to send {@code api} requests of {@code clientVersion} in. The client's version
     * when the backends support it, when their range is unknown, or when it is not bridgeable
     * (then the backend itself answers what it thinks of it).
     */
    public short target(ApiKeys api, short clientVersion) {
        short bridged = bridgedVersion(api, clientVersion);
        return bridged < 0 ? clientVersion : bridged;
    }

    /** True if every backend supports some version of {@code api}. */
    public boolean supports(ApiKeys api) {
        return backends.containsKey(api);
    }

    /** True if {@code clientVersion} of {@code api} can be served: supported as it is, or bridged. */
    public boolean canServe(ApiKeys api, short clientVersion) {
        return bridgedVersion(api, clientVersion) >= 0;
    }

    /** The target version, or -1 if no backend-supported version lies in the client version's segment. */
    private short bridgedVersion(ApiKeys api, short clientVersion) {
        Range range = backends.get(api);
        if (range == null || (clientVersion >= range.min() && clientVersion <= range.max())) {
            return clientVersion;
        }
        short low = (short) Math.max(range.min(), segmentStart(api, clientVersion));
        short high = (short) Math.min(range.max(), segmentEnd(api, clientVersion));
        if (low > high) {
            return -1;
        }
        short target = clientVersion < low ? low : high;
        return carriesEveryField(api, clientVersion, target) ? target : -1;
    }

    /** True if every request field {@code clientVersion} has exists in {@code target}, or is reset on purpose. */
    private static boolean carriesEveryField(ApiKeys api, short clientVersion, short target) {
        Set<String> missing = RequestFieldCoverage.fieldsMissingIn(api, clientVersion, target);
        missing.removeAll(RESET_FIELDS.getOrDefault(api, Set.of()));
        return missing.isEmpty();
    }

    /**
     * The client's request {@code body} encoded in {@code target} (with a placeholder correlation
     * id, as for every backend request).
     *
     * @throws UnsupportedVersionException when the client set a field {@code target} does not have
     */
    public static ByteBuf encodeRequest(ByteBufAllocator alloc, RequestFrame frame, short target, ApiMessage body) {
        dropFieldsTargetLacks(body, target);
        return KafkaMessages.encodeRequest(alloc, frame.apiKey(), target, frame.header().clientId(), body,
                frame.recordRegions());
    }

    /**
     * Resets, deliberately, the request fields a client may set that {@code target} lacks and the
     * backend does not need. OffsetFetch {@code requireStable} (v7+) asks to wait for pending
     * transactional offsets; backends without transactions (KafScale has no InitProducerId) never
     * have any, so every answer is already stable. Every other field a client sets and the target
     * lacks makes the encoding fail, and the client gets UNSUPPORTED_VERSION.
     */
    private static void dropFieldsTargetLacks(ApiMessage body, short target) {
        if (body instanceof OffsetFetchRequestData offsetFetch && target < OFFSET_FETCH_REQUIRE_STABLE) {
            offsetFetch.setRequireStable(false);
        }
    }

    /** Answers a request that could not be bridged with UNSUPPORTED_VERSION; releases the frame. */
    public static CompletableFuture<ByteBuf> refuse(ByteBufAllocator alloc, RequestFrame frame,
                                             UnsupportedVersionException cause) {
        LOG.info("{} cannot be bridged to a version the backends support: {}", frame, cause.getMessage());
        try {
            return CompletableFuture.completedFuture(ErrorResponder.respond(alloc, frame, Errors.UNSUPPORTED_VERSION));
        } finally {
            frame.release();
        }
    }

    /**
     * Turns a backend response frame read in {@code target} into the client's version with the
     * client's correlation id; releases {@code frame}. Fields the client's version lacks are
     * dropped when the generated class marks them ignorable; callers reset the others first
     * (see {@code FetchApi}).
     */
    public static ByteBuf convertResponse(ByteBufAllocator alloc, ByteBuf frame, ApiKeys api, short target,
                                   short clientVersion, int correlationId) {
        try {
            ApiMessage body = KafkaMessages.decodeResponse(frame, api, target);
            return KafkaMessages.encodeResponse(alloc, api, clientVersion, correlationId, body);
        } finally {
            frame.release();
        }
    }

    private static short segmentStart(ApiKeys api, short version) {
        short start = 0;
        for (short s : SEGMENT_STARTS.getOrDefault(api, new short[0])) {
            if (s <= version) {
                start = s;
            }
        }
        return start;
    }

    private static short segmentEnd(ApiKeys api, short version) {
        for (short s : SEGMENT_STARTS.getOrDefault(api, new short[0])) {
            if (s > version) {
                return (short) (s - 1);
            }
        }
        return Short.MAX_VALUE;
    }

    private static Map<ApiKeys, short[]> segmentStarts() {
        Map<ApiKeys, short[]> starts = new EnumMap<>(ApiKeys.class);
        starts.put(ApiKeys.PRODUCE, new short[] {3});
        starts.put(ApiKeys.FETCH, new short[] {4, 13});
        starts.put(ApiKeys.JOIN_GROUP, new short[] {4});
        starts.put(ApiKeys.LEAVE_GROUP, new short[] {3});
        starts.put(ApiKeys.OFFSET_COMMIT, new short[] {10});
        starts.put(ApiKeys.OFFSET_FETCH, new short[] {8, 10});
        starts.put(ApiKeys.LIST_OFFSETS, new short[] {1});
        starts.put(ApiKeys.METADATA, new short[] {1});
        return Map.copyOf(starts);
    }
}
