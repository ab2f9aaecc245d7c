package io.leasehold.broker.fetch;

import io.leasehold.broker.protocol.ApiHandler;
import io.leasehold.broker.protocol.KafkaRequest;
import io.leasehold.broker.storage.PartitionReader;
import io.leasehold.broker.topic.TopicMeta;
import io.leasehold.broker.topic.TopicStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderPartition;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderTopic;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData.EpochEndOffset;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * OffsetForLeaderEpoch for consumers validating their position. This broker's logs are never
 * truncated (offsets come from etcd, and an acknowledged write is never rewound), so every epoch a
 * client asks about ends at the log end: the answer is the asked epoch with the partition's next
 * offset, which tells the client no truncation happened.
 */
public final class OffsetForLeaderEpochHandler implements ApiHandler {

    private final TopicStore topics;
    private final PartitionReader reader;

    public OffsetForLeaderEpochHandler(TopicStore topics, PartitionReader reader) {
        this.topics = topics;
        this.reader = reader;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
        OffsetForLeaderEpochRequestData data = request.data(OffsetForLeaderEpochRequestData.class);
        List<String> names = data.topics().stream().map(OffsetForLeaderTopic::topic).toList();
        return TopicLookup.resolve(topics, names).thenCompose(metas -> {
            List<CompletableFuture<EpochEndOffset>> answers = new ArrayList<>();
            for (OffsetForLeaderTopic topic : data.topics()) {
                for (OffsetForLeaderPartition partition : topic.partitions()) {
                    answers.add(endOf(metas.get(topic.topic()), partition));
                }
            }
            return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).thenApply(ignored -> {
                OffsetForLeaderEpochResponseData response = new OffsetForLeaderEpochResponseData();
                int position = 0;
                for (OffsetForLeaderTopic topic : data.topics()) {
                    OffsetForLeaderTopicResult result = new OffsetForLeaderTopicResult().setTopic(topic.topic());
                    for (int i = 0; i < topic.partitions().size(); i++) {
                        result.partitions().add(answers.get(position++).join());
                    }
                    response.topics().add(result);
                }
                return response;
            });
        });
    }

    private CompletableFuture<EpochEndOffset> endOf(Optional<TopicMeta> meta, OffsetForLeaderPartition partition) {
        int index = partition.partition();
        if (meta.isEmpty() || !meta.get().hasPartition(index)) {
            return CompletableFuture.completedFuture(unknown(index));
        }
        return reader.index(meta.get(), index).thenApply(found -> found
                .map(partitionIndex -> new EpochEndOffset().setPartition(index).setErrorCode(Errors.NONE.code())
                        .setLeaderEpoch(partition.leaderEpoch()).setEndOffset(partitionIndex.nextOffset()))
                .orElseGet(() -> unknown(index)));
    }

    private static EpochEndOffset unknown(int partition) {
        return new EpochEndOffset().setPartition(partition).setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                .setLeaderEpoch(-1).setEndOffset(-1);
    }
}
