package io.leasehold.broker.fetch;

import io.leasehold.broker.protocol.ApiHandler;
import io.leasehold.broker.protocol.KafkaRequest;
import io.leasehold.broker.storage.PartitionReader;
import io.leasehold.broker.topic.TopicMeta;
import io.leasehold.broker.topic.TopicStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsTopic;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsTopicResponse;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * ListOffsets from shared storage: latest (-1) is the committed next offset, earliest (-2) the
 * first stored offset, and a timestamp finds the first record at or after it.
 */
public final class ListOffsetsHandler implements ApiHandler {

    private static final long LATEST = -1L;
    private static final long EARLIEST = -2L;

    private final TopicStore topics;
    private final PartitionReader reader;

    public ListOffsetsHandler(TopicStore topics, PartitionReader reader) {
        this.topics = topics;
        this.reader = reader;
    }

    private record Answer(String topic, CompletableFuture<ListOffsetsPartitionResponse> partition) {
    }

    @Override
    public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
        ListOffsetsRequestData data = request.data(ListOffsetsRequestData.class);
        List<String> names = data.topics().stream().map(ListOffsetsTopic::name).toList();
        return TopicLookup.resolve(topics, names).thenCompose(metas -> {
            List<Answer> answers = new ArrayList<>();
            for (ListOffsetsTopic topic : data.topics()) {
                for (ListOffsetsPartition partition : topic.partitions()) {
                    answers.add(new Answer(topic.name(), lookup(metas, topic.name(), partition)));
                }
            }
            return CompletableFuture.allOf(answers.stream().map(Answer::partition).toArray(CompletableFuture[]::new))
                    .thenApply(ignored -> toResponse(answers));
        });
    }

    private CompletableFuture<ListOffsetsPartitionResponse> lookup(Map<String, Optional<TopicMeta>> metas, String topic,
                                                                   ListOffsetsPartition partition) {
        int index = partition.partitionIndex();
        Optional<TopicMeta> meta = metas.get(topic);
        if (meta.isEmpty() || !meta.get().hasPartition(index)) {
            return CompletableFuture.completedFuture(result(index, Errors.UNKNOWN_TOPIC_OR_PARTITION, -1, -1));
        }
        long timestamp = partition.timestamp();
        return reader.index(meta.get(), index).thenCompose(found -> {
            if (found.isEmpty()) {
                return CompletableFuture.completedFuture(result(index, Errors.UNKNOWN_TOPIC_OR_PARTITION, -1, -1));
            }
            if (timestamp == LATEST) {
                return CompletableFuture.completedFuture(result(index, Errors.NONE, found.get().nextOffset(), -1));
            }
            if (timestamp == EARLIEST) {
                return CompletableFuture.completedFuture(result(index, Errors.NONE, found.get().logStartOffset(), -1));
            }
            if (timestamp < 0) {
                return CompletableFuture.completedFuture(result(index, Errors.INVALID_REQUEST, -1, -1));
            }
            return reader.offsetForTimestamp(meta.get(), index, found.get(), timestamp)
                    .thenApply(offset -> offset.isPresent()
                            ? result(index, Errors.NONE, offset.get().offset(), offset.get().timestamp())
                            : result(index, Errors.NONE, -1, -1));
        });
    }

    private static ListOffsetsPartitionResponse result(int partition, Errors error, long offset, long timestamp) {
        return new ListOffsetsPartitionResponse()
                .setPartitionIndex(partition)
                .setErrorCode(error.code())
                .setOffset(offset)
                .setTimestamp(timestamp)
                .setLeaderEpoch(-1);
    }

    private static ListOffsetsResponseData toResponse(List<Answer> answers) {
        ListOffsetsResponseData response = new ListOffsetsResponseData();
        ListOffsetsTopicResponse current = null;
        for (Answer answer : answers) {
            if (current == null || !current.name().equals(answer.topic())) {
                current = new ListOffsetsTopicResponse().setName(answer.topic());
                response.topics().add(current);
            }
            current.partitions().add(answer.partition().join());
        }
        return response;
    }
}
