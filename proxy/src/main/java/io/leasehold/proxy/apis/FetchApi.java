package io.leasehold.proxy.apis;

import io.leasehold.proxy.backend.ResponseInspector;
import io.leasehold.proxy.exchange.MergedRead;
import io.leasehold.proxy.exchange.PartitionErrorWalker;
import io.leasehold.proxy.exchange.PartitionedApi;
import io.leasehold.proxy.exchange.ReadAheads;
import io.leasehold.proxy.exchange.ReadsAhead;
import io.leasehold.proxy.exchange.StreamedAnswer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;

/**
 * Fetch as a partitioned API. Fetch sessions are not forwarded: every sub-request is a full,
 * sessionless fetch (session id 0, epoch -1), so brokers answer with session id 0 and the
 * client keeps sending full fetches. A single-owner response is streamed to the client as it
 * arrives, without being decoded or buffered whole; a {@link FetchStreamInspector} reads its
 * partition headers as they pass. The client's rack is not forwarded and no response names a
 * backend broker (no preferred read replica, no current leader), since the proxy is the only
 * node clients know. Every sub-request is a consumer's (replica id -1), and a fetch naming a replica
 * is refused (see {@link #refusal}). Any broker serves reads, so a read whose broker does
 * not answer within its long-poll plus a second is retried on another.
 *
 * <p>A fetch split over several owners is merged under the client's own limits: each sub-fetch
 * asks for a share of {@code max_bytes} in proportion to its partitions and waits only what is
 * left of {@code max_wait_ms}; the merged answer goes as soon as its data reaches {@code min_bytes}
 * (owners still long-polling are not waited for) or half a second past {@code max_wait_ms}; and
 * partitions past {@code max_bytes} are answered without records, so the client fetches them again.
 * In single-node mode, once an answer has gone, each owner that returned data is read ahead (see
 * {@link ReadAheads}).
 */
public final class FetchApi implements PartitionedApi<FetchRequestData, FetchResponseData, FetchTopic, FetchPartition,
        PartitionData>, ReadsAhead<FetchRequestData, FetchPartition, PartitionData>,
        MergedRead<FetchRequestData, PartitionData>, StreamedAnswer {
    private static final int SESSIONLESS_EPOCH = -1;
    private static final int NO_REPLICA = -1;
    /** The replica id a consumer sends (v0-14 {@code ReplicaId}, v15+ {@code ReplicaState.ReplicaId}). */
    private static final int CONSUMER = -1;
    /** How much longer than its long-poll a broker may take to answer before the read is tried elsewhere. */
    private static final Duration ANSWER_ALLOWANCE = Duration.ofSeconds(1);
    /**
     * How much longer than its long-poll a merged read waits for an owner before answering
     * without it: shorter than {@link #ANSWER_ALLOWANCE}, so the silent owner's partitions are
     * answered empty rather than asked of another broker while the others' answers wait.
     */
    private static final Duration MERGED_ANSWER_ALLOWANCE = Duration.ofMillis(500);
    /**
     * How long past the long-poll (at most the proxy's request timeout) failed reads are retried:
     * time for a retry on another broker even when the client polls with {@code fetch.max.wait.ms} 0.
     */
    private static final Duration RETRY_ALLOWANCE = Duration.ofSeconds(3);

    private final PartitionErrorWalker.Layouts responseLayouts = FetchStreamInspector.layouts();

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.FETCH;
    }

    @Override
    public List<FetchTopic> topics(FetchRequestData request) {
        return request.topics();
    }

    @Override
    public String topicName(FetchTopic topic) {
        return topic.topic();
    }

    @Override
    public Uuid topicId(FetchTopic topic) {
        return topic.topicId();
    }

    @Override
    public List<FetchPartition> partitions(FetchTopic topic) {
        return topic.partitions();
    }

    @Override
    public int partitionIndex(FetchPartition partition) {
        return partition.partition();
    }

    @Override
    public FetchRequestData subRequest(FetchRequestData request,
                                       LinkedHashMap<FetchTopic, List<FetchPartition>> partitions) {
        List<FetchTopic> topics = new ArrayList<>();
        partitions.forEach((topic, parts) -> topics.add(new FetchTopic()
                .setTopic(topic.topic()).setTopicId(topic.topicId()).setPartitions(parts)));
        return new FetchRequestData()
                .setClusterId(request.clusterId())
                .setReplicaId(CONSUMER)
                .setReplicaState(new FetchRequestData.ReplicaState().setReplicaId(CONSUMER).setReplicaEpoch(-1))
                .setMaxWaitMs(request.maxWaitMs())
                .setMinBytes(request.minBytes())
                .setMaxBytes(request.maxBytes())
                .setIsolationLevel(request.isolationLevel())
                .setSessionId(0)
                .setSessionEpoch(SESSIONLESS_EPOCH)
                .setTopics(topics)
                .setForgottenTopicsData(new ArrayList<>());
    }

    @Override
    public void forEachResult(FetchResponseData response, ResultSink<PartitionData> sink) {
        for (FetchResponseData.FetchableTopicResponse topic : response.responses()) {
            for (PartitionData p : topic.partitions()) {
                // Backend broker ids mean nothing to clients: the proxy is their only node.
                p.setPreferredReadReplica(NO_REPLICA).setCurrentLeader(new FetchResponseData.LeaderIdAndEpoch());
                sink.accept(topic.topic(), topic.topicId(), p.partitionIndex(), p);
            }
        }
    }

    @Override
    public short errorCode(PartitionData result) {
        return result.errorCode();
    }

    @Override
    public PartitionData errorResult(int partition, Errors error) {
        // Empty records, as a broker sends: librdkafka rejects a whole response with a null record set.
        return new PartitionData().setPartitionIndex(partition).setErrorCode(error.code())
                .setHighWatermark(-1).setLastStableOffset(-1).setLogStartOffset(-1).setRecords(MemoryRecords.EMPTY);
    }

    /**
     * The merged response, holding no more record bytes than the client's {@code max_bytes}
     * except for the first partition with data (KIP-74: the first batch always goes, so a large
     * batch never blocks progress). A partition past the limit is answered as if it had nothing
     * new: no records, no error, its offsets as the owner sent them, so the client asks again.
     */
    @Override
    public FetchResponseData assemble(FetchRequestData request, LinkedHashMap<FetchTopic, List<PartitionData>> results,
                                      int throttleTimeMs) {
        long limit = request.maxBytes() > 0 ? request.maxBytes() : Integer.MAX_VALUE;
        long taken = 0;
        List<FetchResponseData.FetchableTopicResponse> topics = new ArrayList<>();
        for (Map.Entry<FetchTopic, List<PartitionData>> topic : results.entrySet()) {
            List<PartitionData> parts = new ArrayList<>();
            for (PartitionData p : topic.getValue()) {
                int size = p.records() == null ? 0 : p.records().sizeInBytes();
                if (size > 0 && taken > 0 && taken + size > limit) {
                    parts.add(withoutRecords(p));
                } else {
                    taken += size;
                    parts.add(p);
                }
            }
            topics.add(new FetchResponseData.FetchableTopicResponse()
                    .setTopic(topic.getKey().topic()).setTopicId(topic.getKey().topicId()).setPartitions(parts));
        }
        return new FetchResponseData().setResponses(topics).setThrottleTimeMs(throttleTimeMs).setSessionId(0);
    }

    private static PartitionData withoutRecords(PartitionData p) {
        return new PartitionData().setPartitionIndex(p.partitionIndex()).setErrorCode(p.errorCode())
                .setHighWatermark(p.highWatermark()).setLastStableOffset(p.lastStableOffset())
                .setLogStartOffset(p.logStartOffset()).setRecords(MemoryRecords.EMPTY);
    }

    /** Shares {@code max_bytes} by partition count (the owners' data is unknown beforehand) and waits what is left. */
    @Override
    public void share(FetchRequestData subRequest, int partitions, int total, Duration elapsed) {
        if (partitions < total && subRequest.maxBytes() > 0) {
            subRequest.setMaxBytes((int) Math.max(1, (long) subRequest.maxBytes() * partitions / total));
        }
        subRequest.setMaxWaitMs((int) Math.max(0, subRequest.maxWaitMs() - elapsed.toMillis()));
    }

    /** With {@code min_bytes} 0 no owner long-polls, so the merged answer waits for all of them (nothing is dropped). */
    @Override
    public int answerAfterBytes(FetchRequestData request) {
        return Math.max(0, request.minBytes());
    }

    @Override
    public int dataBytes(PartitionData result) {
        return result.records() == null ? 0 : result.records().sizeInBytes();
    }

    @Override
    public Optional<ReadsAhead<FetchRequestData, FetchPartition, PartitionData>> readsAhead() {
        return Optional.of(this);
    }

    @Override
    public Optional<MergedRead<FetchRequestData, PartitionData>> mergedRead() {
        return Optional.of(this);
    }

    @Override
    public Optional<StreamedAnswer> streamedAnswer() {
        return Optional.of(this);
    }

    @Override
    public long position(FetchPartition partition) {
        return partition.fetchOffset();
    }

    /**
     * The offset after the last complete batch: a consumer's position once it has read them,
     * aborted and control batches included, so a read ahead asks for what the client asks next.
     */
    @Override
    public long nextPosition(PartitionData result) {
        if (result.errorCode() != Errors.NONE.code() || !(result.records() instanceof Records records)) {
            return -1;
        }
        long next = -1;
        for (RecordBatch batch : records.batches()) {
            next = batch.nextOffset();
        }
        return next;
    }

    @Override
    public FetchPartition atPosition(FetchPartition partition, long position) {
        return partition.duplicate().setFetchOffset(position);
    }

    /** A read-committed consumer must not be answered records read uncommitted, nor the other way round. */
    @Override
    public Object readAheadKind(FetchRequestData request) {
        return request.isolationLevel();
    }

    /** No long poll: a read ahead that finds nothing new answers at once and is not used. */
    @Override
    public void readingAhead(FetchRequestData subRequest) {
        subRequest.setMaxWaitMs(0);
    }

    @Override
    public Duration mergedAnswerDeadline(FetchRequestData request, Duration elapsed) {
        Duration left = maxWait(request).minus(elapsed);
        return (left.isNegative() ? Duration.ZERO : left).plus(MERGED_ANSWER_ALLOWANCE);
    }

    @Override
    public int throttleTimeMs(FetchResponseData response) {
        return response.throttleTimeMs();
    }

    @Override
    public boolean answersEmptyWhenThrottled() {
        return true;
    }

    @Override
    public short topLevelError(FetchResponseData response) {
        return response.errorCode();
    }

    @Override
    public boolean forwardsOriginal(FetchRequestData request) {
        return false;
    }

    /**
     * A fetch naming a replica (a broker id) asks to be served as a follower: above the high
     * watermark, moving it for acks=all. No client of the proxy is a follower of a backend, and the
     * proxy's own login may hold CLUSTER_ACTION, so such a fetch is answered as Kafka answers it
     * for a principal without CLUSTER_ACTION: TOPIC_AUTHORIZATION_FAILED for every partition.
     * Other non-consumer ids (-2, "debugging") are sent as a consumer's by {@link #subRequest}.
     */
    @Override
    public Errors refusal(FetchRequestData request) {
        boolean follower = request.replicaId() >= 0 || request.replicaState().replicaId() >= 0;
        return follower ? Errors.TOPIC_AUTHORIZATION_FAILED : null;
    }

    @Override
    public ResponseInspector streamInspector(short version, StreamedErrors errors) {
        return new FetchStreamInspector(responseLayouts.walker(version, errors));
    }

    @Override
    public Duration retryBudget(FetchRequestData request, Duration fallback) {
        Duration maxWait = maxWait(request);
        return (maxWait.compareTo(fallback) < 0 ? maxWait : fallback).plus(RETRY_ALLOWANCE);
    }

    @Override
    public Duration attemptTimeout(FetchRequestData request, Duration remaining) {
        Duration limit = maxWait(request).plus(ANSWER_ALLOWANCE);
        return limit.compareTo(remaining) < 0 ? limit : remaining;
    }

    @Override
    public boolean readsAnyBroker() {
        return true;
    }

    private static Duration maxWait(FetchRequestData request) {
        return Duration.ofMillis(Math.max(0, request.maxWaitMs()));
    }

    @Override
    public boolean idempotent() {
        return true;
    }
}
