package io.leasehold.proxy.apis;

import io.leasehold.proxy.exchange.PartitionedApi;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderPartition;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderTopic;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData.EpochEndOffset;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * OffsetForLeaderEpoch (consumer log truncation checks) as a partitioned API. Backends are always
 * asked as a consumer (replica id -1, which v2 cannot carry and leaves out): a client's own bytes
 * are forwarded only when they already say -1, as v3+ consumers send.
 */
public final class OffsetForLeaderEpochApi implements PartitionedApi<OffsetForLeaderEpochRequestData,
        OffsetForLeaderEpochResponseData, OffsetForLeaderTopic, OffsetForLeaderPartition, EpochEndOffset> {
    private static final int CONSUMER = -1;

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.OFFSET_FOR_LEADER_EPOCH;
    }

    @Override
    public List<OffsetForLeaderTopic> topics(OffsetForLeaderEpochRequestData request) {
        return new ArrayList<>(request.topics());
    }

    @Override
    public String topicName(OffsetForLeaderTopic topic) {
        return topic.topic();
    }

    @Override
    public Uuid topicId(OffsetForLeaderTopic topic) {
        return Uuid.ZERO_UUID;
    }

    @Override
    public List<OffsetForLeaderPartition> partitions(OffsetForLeaderTopic topic) {
        return topic.partitions();
    }

    @Override
    public int partitionIndex(OffsetForLeaderPartition partition) {
        return partition.partition();
    }

    @Override
    public OffsetForLeaderEpochRequestData subRequest(OffsetForLeaderEpochRequestData request,
            LinkedHashMap<OffsetForLeaderTopic, List<OffsetForLeaderPartition>> partitions) {
        OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection topics =
                new OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection();
        partitions.forEach((topic, parts) -> topics.add(new OffsetForLeaderTopic().setTopic(topic.topic())
                .setPartitions(parts)));
        return new OffsetForLeaderEpochRequestData().setReplicaId(CONSUMER).setTopics(topics);
    }

    @Override
    public void forEachResult(OffsetForLeaderEpochResponseData response, ResultSink<EpochEndOffset> sink) {
        for (OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult topic : response.topics()) {
            for (EpochEndOffset p : topic.partitions()) {
                sink.accept(topic.topic(), Uuid.ZERO_UUID, p.partition(), p);
            }
        }
    }

    @Override
    public short errorCode(EpochEndOffset result) {
        return result.errorCode();
    }

    @Override
    public EpochEndOffset errorResult(int partition, Errors error) {
        return new EpochEndOffset().setPartition(partition).setErrorCode(error.code());
    }

    @Override
    public OffsetForLeaderEpochResponseData assemble(OffsetForLeaderEpochRequestData request,
            LinkedHashMap<OffsetForLeaderTopic, List<EpochEndOffset>> results, int throttleTimeMs) {
        OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResultCollection topics =
                new OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResultCollection();
        results.forEach((topic, parts) -> topics.add(new OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult()
                .setTopic(topic.topic()).setPartitions(parts)));
        return new OffsetForLeaderEpochResponseData().setTopics(topics).setThrottleTimeMs(throttleTimeMs);
    }

    @Override
    public int throttleTimeMs(OffsetForLeaderEpochResponseData response) {
        return response.throttleTimeMs();
    }

    @Override
    public boolean forwardsOriginal(OffsetForLeaderEpochRequestData request) {
        return request.replicaId() == CONSUMER;
    }

    @Override
    public Duration retryBudget(OffsetForLeaderEpochRequestData request, Duration fallback) {
        return fallback;
    }

    @Override
    public boolean idempotent() {
        return true;
    }

    @Override
    public boolean readsAnyBroker() {
        return true;
    }
}
