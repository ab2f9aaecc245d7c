package io.leasehold.proxy.apis;

import io.leasehold.proxy.exchange.OrderedWrites;
import io.leasehold.proxy.exchange.PartitionedApi;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * Produce as a partitioned API. Sub-requests always ask for acknowledgement (acks=0 becomes
 * acks=1 towards brokers) so the proxy learns about ownership rejections and can land the
 * records on the right broker even when the client asked for no answer. Retries end at 80 % of
 * the request's timeout, and each forwards only the time left.
 */
public final class ProduceApi implements PartitionedApi<ProduceRequestData, ProduceResponseData, TopicProduceData,
        PartitionProduceData, PartitionProduceResponse>, OrderedWrites<ProduceRequestData> {
    /**
     * Share of the client's timeout the proxy may spend retrying: the answer reaches the client
     * before it gives up and re-sends, which would duplicate records of non-idempotent producers.
     */
    private static final int BUDGET_PERCENT = 80;

    private final Duration ownerAnswerDeadline;

    /**
     * @param ownerAnswerDeadline how long one owner's part may go unanswered before the rest of
     *                            the request is answered without it (single-node presentation);
     *                            null to wait for every owner (node-per-owner: each client
     *                            connection to a node carries one owner's partitions)
     */
    public ProduceApi(Duration ownerAnswerDeadline) {
        this.ownerAnswerDeadline = ownerAnswerDeadline;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.PRODUCE;
    }

    @Override
    public List<TopicProduceData> topics(ProduceRequestData request) {
        return new ArrayList<>(request.topicData());
    }

    @Override
    public String topicName(TopicProduceData topic) {
        return topic.name();
    }

    @Override
    public Uuid topicId(TopicProduceData topic) {
        return topic.topicId();
    }

    @Override
    public List<PartitionProduceData> partitions(TopicProduceData topic) {
        return topic.partitionData();
    }

    @Override
    public int partitionIndex(PartitionProduceData partition) {
        return partition.index();
    }

    @Override
    public ProduceRequestData subRequest(ProduceRequestData request,
                                         LinkedHashMap<TopicProduceData, List<PartitionProduceData>> partitions) {
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        partitions.forEach((topic, parts) -> topics.add(new TopicProduceData()
                .setName(topic.name()).setTopicId(topic.topicId()).setPartitionData(parts)));
        return new ProduceRequestData()
                .setTransactionalId(request.transactionalId())
                .setAcks(request.acks() == 0 ? 1 : request.acks())
                .setTimeoutMs(request.timeoutMs())
                .setTopicData(topics);
    }

    @Override
    public void forEachResult(ProduceResponseData response, ResultSink<PartitionProduceResponse> sink) {
        for (ProduceResponseData.TopicProduceResponse topic : response.responses()) {
            for (PartitionProduceResponse p : topic.partitionResponses()) {
                sink.accept(topic.name(), topic.topicId(), p.index(), p);
            }
        }
    }

    @Override
    public short errorCode(PartitionProduceResponse result) {
        return result.errorCode();
    }

    @Override
    public PartitionProduceResponse errorResult(int partition, Errors error) {
        return new PartitionProduceResponse().setIndex(partition).setErrorCode(error.code())
                .setBaseOffset(-1).setLogAppendTimeMs(-1).setLogStartOffset(-1);
    }

    @Override
    public ProduceResponseData assemble(ProduceRequestData request,
                                        LinkedHashMap<TopicProduceData, List<PartitionProduceResponse>> results,
                                        int throttleTimeMs) {
        ProduceResponseData.TopicProduceResponseCollection topics =
                new ProduceResponseData.TopicProduceResponseCollection();
        results.forEach((topic, parts) -> topics.add(new ProduceResponseData.TopicProduceResponse()
                .setName(topic.name()).setTopicId(topic.topicId()).setPartitionResponses(parts)));
        return new ProduceResponseData().setResponses(topics).setThrottleTimeMs(throttleTimeMs);
    }

    @Override
    public int throttleTimeMs(ProduceResponseData response) {
        return response.throttleTimeMs();
    }

    @Override
    public boolean forwardsOriginal(ProduceRequestData request) {
        return request.acks() != 0;
    }

    @Override
    public Duration retryBudget(ProduceRequestData request, Duration fallback) {
        return Duration.ofMillis(Math.max(0L, request.timeoutMs()) * BUDGET_PERCENT / 100);
    }

    /**
     * A write waits for its broker at most what is left of the budget, so that a paused owner's
     * writes are answered REQUEST_TIMED_OUT before the client gives up on the whole request.
     * acks=0 has no client waiting: it waits the connection's timeout.
     */
    @Override
    public Duration attemptTimeout(ProduceRequestData request, Duration remaining) {
        return request.acks() == 0 ? null : remaining;
    }

    /** acks=0 has no answer a client waits for, so no other partition waits for its owner. */
    @Override
    public Duration ownerAnswerDeadline(ProduceRequestData request) {
        return request.acks() == 0 ? null : ownerAnswerDeadline;
    }

    @Override
    public boolean continuesWithoutClient(ProduceRequestData request) {
        return request.acks() == 0;
    }

    @Override
    public void limitTimeout(ProduceRequestData subRequest, int remainingMillis) {
        subRequest.setTimeoutMs(Math.min(subRequest.timeoutMs(), remainingMillis));
    }

    @Override
    public boolean idempotent() {
        return false;
    }

    @Override
    public Optional<OrderedWrites<ProduceRequestData>> orderedWrites() {
        return Optional.of(this);
    }
}
