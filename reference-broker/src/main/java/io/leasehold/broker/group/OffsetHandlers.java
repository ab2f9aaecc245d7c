package io.leasehold.broker.group;

import io.leasehold.broker.protocol.ApiHandler;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponsePartition;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponseTopic;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartition;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseTopic;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * OffsetCommit and OffsetFetch (one group per request). Commits are checked against the group's
 * membership and generation, then written to etcd fenced on the coordinator claim.
 */
public final class OffsetHandlers {

    private final GroupCoordinator coordinator;
    private final OffsetStore offsets;

    public OffsetHandlers(GroupCoordinator coordinator, OffsetStore offsets) {
        this.coordinator = coordinator;
        this.offsets = offsets;
    }

    public ApiHandler offsetCommit() {
        return request -> {
            OffsetCommitRequestData data = request.data(OffsetCommitRequestData.class);
            return coordinator.access(data.groupId()).thenCompose(access -> {
                if (!access.granted()) {
                    return done(commitResponse(data, Errors.NOT_COORDINATOR));
                }
                Errors check = access.group().validateCommit(data.memberId(), data.generationIdOrMemberEpoch());
                if (check != Errors.NONE) {
                    return done(commitResponse(data, check));
                }
                Map<TopicPartition, OffsetStore.CommittedOffset> committed = new LinkedHashMap<>();
                for (OffsetCommitRequestTopic topic : data.topics()) {
                    for (OffsetCommitRequestPartition partition : topic.partitions()) {
                        committed.put(new TopicPartition(topic.name(), partition.partitionIndex()),
                                new OffsetStore.CommittedOffset(partition.committedOffset(),
                                        partition.committedLeaderEpoch(), partition.committedMetadata()));
                    }
                }
                return offsets.commit(access.claim(), data.groupId(), committed).thenApply(ok -> {
                    if (!ok) {
                        coordinator.lost(data.groupId());
                    }
                    return (ApiMessage) commitResponse(data, ok ? Errors.NONE : Errors.NOT_COORDINATOR);
                });
            });
        };
    }

    public ApiHandler offsetFetch() {
        return request -> {
            OffsetFetchRequestData data = request.data(OffsetFetchRequestData.class);
            return coordinator.access(data.groupId()).thenCompose(access -> {
                if (!access.granted()) {
                    return done(new OffsetFetchResponseData().setErrorCode(Errors.NOT_COORDINATOR.code()));
                }
                return offsets.fetch(data.groupId()).thenApply(stored -> (ApiMessage) fetchResponse(data, stored));
            });
        };
    }

    private static OffsetFetchResponseData fetchResponse(OffsetFetchRequestData data,
                                                         Map<TopicPartition, OffsetStore.CommittedOffset> stored) {
        OffsetFetchResponseData response = new OffsetFetchResponseData().setErrorCode(Errors.NONE.code());
        Map<String, OffsetFetchResponseTopic> topics = new LinkedHashMap<>();
        if (data.topics() == null) {
            stored.forEach((partition, offset) -> topic(topics, partition.topic())
                    .partitions().add(partition(partition.partition(), offset)));
        } else {
            for (OffsetFetchRequestData.OffsetFetchRequestTopic topic : data.topics()) {
                OffsetFetchResponseTopic answer = topic(topics, topic.name());
                for (int index : topic.partitionIndexes()) {
                    answer.partitions().add(partition(index, stored.get(new TopicPartition(topic.name(), index))));
                }
            }
        }
        response.topics().addAll(topics.values());
        return response;
    }

    private static OffsetFetchResponseTopic topic(Map<String, OffsetFetchResponseTopic> topics, String name) {
        return topics.computeIfAbsent(name, n -> new OffsetFetchResponseTopic().setName(n));
    }

    private static OffsetFetchResponsePartition partition(int index, OffsetStore.CommittedOffset offset) {
        return new OffsetFetchResponsePartition()
                .setPartitionIndex(index)
                .setErrorCode(Errors.NONE.code())
                .setCommittedOffset(offset == null ? -1 : offset.offset())
                .setCommittedLeaderEpoch(offset == null ? -1 : offset.leaderEpoch())
                .setMetadata(offset == null ? "" : offset.metadata());
    }

    private static OffsetCommitResponseData commitResponse(OffsetCommitRequestData data, Errors error) {
        OffsetCommitResponseData response = new OffsetCommitResponseData();
        for (OffsetCommitRequestTopic topic : data.topics()) {
            OffsetCommitResponseTopic answer = new OffsetCommitResponseTopic().setName(topic.name());
            for (OffsetCommitRequestPartition partition : topic.partitions()) {
                answer.partitions().add(new OffsetCommitResponsePartition()
                        .setPartitionIndex(partition.partitionIndex()).setErrorCode(error.code()));
            }
            response.topics().add(answer);
        }
        return response;
    }

    private static CompletableFuture<ApiMessage> done(ApiMessage message) {
        return CompletableFuture.completedFuture(message);
    }
}
