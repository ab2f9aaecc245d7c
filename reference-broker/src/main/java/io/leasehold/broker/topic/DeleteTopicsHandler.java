package io.leasehold.broker.topic;

import io.leasehold.broker.protocol.ApiHandler;
import io.leasehold.broker.protocol.KafkaRequest;
import io.leasehold.broker.storage.SegmentFiles;
import io.leasehold.broker.storage.SegmentReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsResponseData.DeletableTopicResult;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * DeleteTopics by name (all versions) or id (v6). The etcd keys go in one transaction, which
 * also ends every partition lease of the topic; then the files are removed.
 */
public final class DeleteTopicsHandler implements ApiHandler {

    private static final Logger LOG = LoggerFactory.getLogger(DeleteTopicsHandler.class);

    private final TopicStore topics;
    private final SegmentFiles files;
    private final SegmentReader reader;

    public DeleteTopicsHandler(TopicStore topics, SegmentFiles files, SegmentReader reader) {
        this.topics = topics;
        this.files = files;
        this.reader = reader;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
        DeleteTopicsRequestData data = request.data(DeleteTopicsRequestData.class);
        List<DeleteTopicsRequestData.DeleteTopicState> requested = new ArrayList<>(data.topics());
        data.topicNames().forEach(name -> requested.add(new DeleteTopicsRequestData.DeleteTopicState().setName(name)));
        return topics.all().thenCompose(existing -> {
            List<CompletableFuture<DeletableTopicResult>> results = new ArrayList<>();
            for (DeleteTopicsRequestData.DeleteTopicState topic : requested) {
                results.add(delete(topic, existing));
            }
            return CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).thenApply(ignored -> {
                DeleteTopicsResponseData response = new DeleteTopicsResponseData();
                results.forEach(result -> response.responses().add(result.join()));
                return response;
            });
        });
    }

    private CompletableFuture<DeletableTopicResult> delete(DeleteTopicsRequestData.DeleteTopicState topic,
                                                           Map<String, TopicMeta> existing) {
        Optional<TopicMeta> meta = topic.name() != null
                ? Optional.ofNullable(existing.get(topic.name()))
                : existing.values().stream().filter(m -> m.topicId().equals(topic.topicId())).findFirst();
        if (meta.isEmpty()) {
            Errors error = topic.name() != null ? Errors.UNKNOWN_TOPIC_OR_PARTITION : Errors.UNKNOWN_TOPIC_ID;
            return CompletableFuture.completedFuture(new DeletableTopicResult().setName(topic.name())
                    .setTopicId(topic.topicId() == null ? Uuid.ZERO_UUID : topic.topicId())
                    .setErrorCode(error.code()).setErrorMessage("no such topic"));
        }
        TopicMeta target = meta.get();
        return topics.delete(target.name()).thenApply(deleted -> {
            if (!deleted) {
                return new DeletableTopicResult().setName(target.name()).setTopicId(target.topicId())
                        .setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()).setErrorMessage("deleted concurrently");
            }
            try {
                reader.forget(files.partitionDir(target, 0).getParent());
                files.deleteTopicFiles(target);
            } catch (RuntimeException e) {
                LOG.warn("topic {} is deleted but its files could not all be removed", target.name(), e);
            }
            return new DeletableTopicResult().setName(target.name()).setTopicId(target.topicId())
                    .setErrorCode(Errors.NONE.code());
        });
    }
}
