package io.leasehold.proxy.exchange;

import io.leasehold.proxy.admin.ProxyMetrics;
import io.leasehold.proxy.backend.ResponseInspector;
import io.leasehold.proxy.owners.OwnerLookup;
import io.leasehold.proxy.owners.Target;
import io.leasehold.routing.snapshot.Ownership;
import io.leasehold.routing.snapshot.RoutingSnapshot;
import io.leasehold.routing.watch.RoutingTable;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * How one partition-keyed API (Produce, Fetch, ListOffsets, OffsetForLeaderEpoch, and the
 * group APIs that name several groups, each group being one entry) is taken
 * apart into per-broker sub-requests and put back together. The split, routing, retry and
 * merge logic lives once, in {@link PartitionedExchange}; implementations only know their
 * message classes.
 *
 * @param <Q> request data class
 * @param <R> response data class
 * @param <T> request topic element
 * @param <E> request partition element
 * @param <P> response partition element
 */
public interface PartitionedApi<Q extends ApiMessage, R extends ApiMessage, T, E, P> {

    /** Receives one partition result of a response. */
    interface ResultSink<P> {
        void accept(String topicName, Uuid topicId, int partition, P result);
    }

    ApiKeys apiKey();

    List<T> topics(Q request);

    /** The topic's name on the wire ("" when the version names topics by id). */
    String topicName(T topic);

    /** The topic's id on the wire ({@link Uuid#ZERO_UUID} when the version names topics by name). */
    Uuid topicId(T topic);

    List<E> partitions(T topic);

    int partitionIndex(E partition);

    /** A copy of {@code request} carrying only the given partitions (record sets shared, not copied). */
    Q subRequest(Q request, LinkedHashMap<T, List<E>> partitions);

    void forEachResult(R response, ResultSink<P> sink);

    short errorCode(P result);

    P errorResult(int partition, Errors error);

    /** The merged response, topics and partitions in request order. */
    R assemble(Q request, LinkedHashMap<T, List<P>> results, int throttleTimeMs);

    int throttleTimeMs(R response);

    /**
     * True if a throttled broker answers with no partitions at all (KIP-219: Fetch only), so such
     * an answer means "nothing for now" for each partition asked. For any other API a partition
     * missing from an answer is an error, throttled or not: for a write it was not written.
     */
    default boolean answersEmptyWhenThrottled() {
        return false;
    }

    /** An error that applies to every partition of a sub-response; 0 if none. */
    default short topLevelError(R response) {
        return Errors.NONE.code();
    }

    /** True if the single-owner case may forward the client's own bytes unchanged. */
    boolean forwardsOriginal(Q request);

    /**
     * The error every entry of {@code request} is answered with, none of them sent, when the
     * request as a whole is one the proxy refuses; null to route it.
     */
    default Errors refusal(Q request) {
        return null;
    }

    /** Receives the error codes of a response streamed to the client as they pass. */
    interface StreamedErrors {
        void partition(String topicName, Uuid topicId, int partition, short error);

        /** A response-level error, which applies to every partition. */
        void whole(short error);
    }

    /**
     * For an API whose single-owner response is streamed to the client while it arrives, without
     * being decoded: what watches the bytes as they pass, reporting each partition's error code to
     * {@code errors} and removing what clients must not see. Null if the response is read whole.
     */
    default ResponseInspector streamInspector(short version, StreamedErrors errors) {
        return null;
    }

    /** How long rejected partitions may be retried on the client's behalf. */
    Duration retryBudget(Q request, Duration fallback);

    /** True if a sub-request whose answer never arrived may be sent again (reads only). */
    boolean idempotent();

    /**
     * What a partition whose sub-request was sent but never answered reports to the client. Reads
     * report the rejection, which every client handles as "refresh and try again"; writes report
     * REQUEST_TIMED_OUT, what a broker says when it cannot tell whether a write happened, and
     * which every producer retries (NETWORK_EXCEPTION in a response is final for librdkafka).
     */
    default Errors unknownOutcome() {
        return idempotent() ? rejection() : Errors.REQUEST_TIMED_OUT;
    }

    /**
     * How long to wait for one backend's answer before giving up on it (an unknown outcome), or
     * null to wait the connection's request timeout.
     *
     * @param remaining what is left of the exchange's retry budget
     */
    default Duration attemptTimeout(Q request, Duration remaining) {
        return null;
    }

    /**
     * For a write split over owners that share one client connection (the single-node
     * presentation): how long one owner may leave its part unanswered before the other owners'
     * partitions are answered without it, its own with an unknown outcome, and the owner is
     * known silent; while it is, its partitions are answered at once with the rejection instead
     * of being sent. Null: an owner's answer is awaited as long as {@link #attemptTimeout} allows.
     */
    default Duration ownerAnswerDeadline(Q request) {
        return null;
    }

    /**
     * True if any broker can answer for any partition (reads from shared storage), so a
     * partition whose owner did not answer is retried on another broker.
     */
    default boolean readsAnyBroker() {
        return false;
    }

    /** True if the request goes on after its client hung up (it never expected an answer: acks=0). */
    default boolean continuesWithoutClient(Q request) {
        return false;
    }

    /** Lowers a sub-request's own timeout to what is left of the exchange's budget (writes). */
    default void limitTimeout(Q subRequest, int remainingMillis) {
    }

    /**
     * Gives a sub-request its share of the client's limits (reads): it carries {@code partitions}
     * of the {@code total} partitions sent out at once, and {@code elapsed} has passed since the
     * request arrived.
     */
    default void share(Q subRequest, int partitions, int total, Duration elapsed) {
    }

    /**
     * For a read whose brokers long-poll (Fetch): how many bytes of data let a merged answer go
     * without waiting for the brokers still polling; 0 if a merged answer waits for every broker.
     */
    default int answerAfterBytes(Q request) {
        return 0;
    }

    /** The data {@code result} brings towards {@link #answerAfterBytes}. */
    default int dataBytes(P result) {
        return 0;
    }

    /**
     * Whether a read is followed by reads ahead of the next positions (Fetch): see
     * {@link ReadAheads}. The five methods below are asked only when this holds.
     */
    default boolean readsAhead() {
        return false;
    }

    /** The position {@code partition} asks to read from. */
    default long position(E partition) {
        throw new UnsupportedOperationException(apiKey() + " does not read ahead");
    }

    /** The position a client asks for next once it has {@code result}; -1 if that is not known. */
    default long nextPosition(P result) {
        throw new UnsupportedOperationException(apiKey() + " does not read ahead");
    }

    /** {@code partition} asking to read from {@code position} instead. */
    default E atPosition(E partition, long position) {
        throw new UnsupportedOperationException(apiKey() + " does not read ahead");
    }

    /** What else of {@code request} than positions its answer depends on: a read ahead serves only requests alike. */
    default Object readAheadKind(Q request) {
        throw new UnsupportedOperationException(apiKey() + " does not read ahead");
    }

    /** Turns {@code subRequest} into a read ahead: answered at once with whatever there is. */
    default void readingAhead(Q subRequest) {
        throw new UnsupportedOperationException(apiKey() + " does not read ahead");
    }

    /**
     * How long a merged read's attempt, starting {@code elapsed} after the request arrived, waits
     * for its brokers before it is answered with what is in (only asked when
     * {@link #answerAfterBytes} is positive).
     */
    default Duration mergedAnswerDeadline(Q request, Duration elapsed) {
        return Duration.ZERO;
    }

    /** Where {@code name}/{@code partition} goes on retry number {@code attempt}; partitions by default. */
    default Target route(OwnerLookup router, RoutingSnapshot snapshot, String name, int partition, int attempt) {
        return router.partition(snapshot, name, partition, attempt);
    }

    /** The error with which a broker says "not mine": the entry is retried elsewhere. */
    default Errors rejection() {
        return Errors.NOT_LEADER_OR_FOLLOWER;
    }

    /** Drops the route a rejection proved wrong (only if it still is {@code rejected}). */
    default void invalidate(RoutingTable routes, String name, int partition, Ownership rejected) {
        routes.invalidatePartition(name, partition, rejected);
    }

    /** Counts a rejection in the right metric. */
    default void countRejection(ProxyMetrics metrics) {
        metrics.notLeaderRejection();
    }

    /** True if one connection's requests for a partition must reach the broker in order (writes). */
    default boolean ordersWrites() {
        return false;
    }
}
