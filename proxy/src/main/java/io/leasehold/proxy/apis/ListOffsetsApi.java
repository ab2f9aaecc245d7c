package io.leasehold.proxy.apis;

import io.leasehold.proxy.exchange.PartitionedApi;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsTopic;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * ListOffsets as a partitioned API: each partition asks its owner, which knows the latest offsets.
 * Backends are always asked as a consumer (replica id -1): a follower's id would be answered up to
 * the log end, unreplicated records included, and -2 ("debugging") drops the isolation level. A
 * client's own bytes are forwarded only when they already say -1.
 */
public final class ListOffsetsApi implements PartitionedApi<ListOffsetsRequestData, ListOffsetsResponseData,
        ListOffsetsTopic,
        ListOffsetsPartition, ListOffsetsPartitionResponse> {
    private static final int CONSUMER = -1;

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.LIST_OFFSETS;
    }

    @Override
    public List<ListOffsetsTopic> topics(ListOffsetsRequestData request) {
        return request.topics();
    }

    @Override
    public String topicName(ListOffsetsTopic topic) {
        return topic.name();
    }

    @Override
    public Uuid topicId(ListOffsetsTopic topic) {
        return Uuid.ZERO_UUID;
    }

    @Override
    public List<ListOffsetsPartition> partitions(ListOffsetsTopic topic) {
        return topic.partitions();
    }

    @Override
    public int partitionIndex(ListOffsetsPartition partition) {
        return partition.partitionIndex();
    }

    @Override
    public ListOffsetsRequestData subRequest(ListOffsetsRequestData request,
                                             LinkedHashMap<ListOffsetsTopic, List<ListOffsetsPartition>> partitions) {
        List<ListOffsetsTopic> topics = new ArrayList<>();
        partitions.forEach((topic, parts) -> topics.add(new ListOffsetsTopic().setName(topic.name()).setPartitions(parts)));
        return new ListOffsetsRequestData()
                .setReplicaId(CONSUMER)
                .setIsolationLevel(request.isolationLevel())
                .setTimeoutMs(request.timeoutMs())
                .setTopics(topics);
    }

    @Override
    public void forEachResult(ListOffsetsResponseData response, ResultSink<ListOffsetsPartitionResponse> sink) {
        for (ListOffsetsResponseData.ListOffsetsTopicResponse topic : response.topics()) {
            for (ListOffsetsPartitionResponse p : topic.partitions()) {
                sink.accept(topic.name(), Uuid.ZERO_UUID, p.partitionIndex(), p);
            }
        }
    }

    @Override
    public short errorCode(ListOffsetsPartitionResponse result) {
        return result.errorCode();
    }

    @Override
    public ListOffsetsPartitionResponse errorResult(int partition, Errors error) {
        return new ListOffsetsPartitionResponse().setPartitionIndex(partition).setErrorCode(error.code())
                .setTimestamp(-1).setOffset(-1);
    }

    @Override
    public ListOffsetsResponseData assemble(ListOffsetsRequestData request,
                                            LinkedHashMap<ListOffsetsTopic, List<ListOffsetsPartitionResponse>> results,
                                            int throttleTimeMs) {
        List<ListOffsetsResponseData.ListOffsetsTopicResponse> topics = new ArrayList<>();
        results.forEach((topic, parts) -> topics.add(new ListOffsetsResponseData.ListOffsetsTopicResponse()
                .setName(topic.name()).setPartitions(parts)));
        return new ListOffsetsResponseData().setTopics(topics).setThrottleTimeMs(throttleTimeMs);
    }

    @Override
    public int throttleTimeMs(ListOffsetsResponseData response) {
        return response.throttleTimeMs();
    }

    @Override
    public boolean forwardsOriginal(ListOffsetsRequestData request) {
        return request.replicaId() == CONSUMER;
    }

    @Override
    public Duration retryBudget(ListOffsetsRequestData request, Duration fallback) {
        return request.timeoutMs() > 0 ? Duration.ofMillis(request.timeoutMs()) : fallback;
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
