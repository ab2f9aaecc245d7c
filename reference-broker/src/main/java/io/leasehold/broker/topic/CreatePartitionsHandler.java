package io.leasehold.broker.topic;

import io.leasehold.broker.protocol.ApiHandler;
import io.leasehold.broker.protocol.KafkaRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsRequestData.CreatePartitionsTopic;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreatePartitionsResponseData.CreatePartitionsTopicResult;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * CreatePartitions: raises a topic's partition count. Storage is shared, so there are no
 * replicas to place and manual assignments are refused, as in CreateTopics. A count that does
 * not grow the topic gets INVALID_PARTITIONS, as Kafka answers. New partitions start empty at
 * offset 0, and every broker sees them on its next read of the topic.
 */
public final class CreatePartitionsHandler implements ApiHandler {

    private final TopicStore topics;

    public CreatePartitionsHandler(TopicStore topics) {
        this.topics = topics;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
        CreatePartitionsRequestData data = request.data(CreatePartitionsRequestData.class);
        List<CompletableFuture<CreatePartitionsTopicResult>> results = new ArrayList<>();
        for (CreatePartitionsTopic topic : data.topics()) {
            results.add(grow(topic, data.validateOnly()));
        }
        return CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).thenApply(ignored -> {
            CreatePartitionsResponseData response = new CreatePartitionsResponseData();
            results.forEach(result -> response.results().add(result.join()));
            return response;
        });
    }

    private CompletableFuture<CreatePartitionsTopicResult> grow(CreatePartitionsTopic topic, boolean validateOnly) {
        String name = topic.name();
        if (topic.assignments() != null) {
            return done(failed(name, Errors.INVALID_REPLICA_ASSIGNMENT,
                    "manual replica assignment is not supported; give the count only"));
        }
        return topics.find(name).thenCompose(found -> {
            if (found.isEmpty()) {
                return done(failed(name, Errors.UNKNOWN_TOPIC_OR_PARTITION, "topic '" + name + "' does not exist"));
            }
            TopicMeta current = found.get();
            if (topic.count() <= current.partitions()) {
                return done(failed(name, Errors.INVALID_PARTITIONS, "topic '" + name + "' has " + current.partitions()
                        + " partitions; the new count " + topic.count() + " must be larger"));
            }
            if (validateOnly) {
                return done(succeeded(name));
            }
            // Lost a race with another change of the topic: read it again and judge the count anew.
            return topics.addPartitions(current, topic.count())
                    .thenCompose(grown -> grown ? done(succeeded(name)) : grow(topic, false));
        });
    }

    private static CreatePartitionsTopicResult succeeded(String name) {
        return new CreatePartitionsTopicResult().setName(name).setErrorCode(Errors.NONE.code());
    }

    private static CreatePartitionsTopicResult failed(String name, Errors error, String message) {
        return new CreatePartitionsTopicResult().setName(name).setErrorCode(error.code()).setErrorMessage(message);
    }

    private static CompletableFuture<CreatePartitionsTopicResult> done(CreatePartitionsTopicResult result) {
        return CompletableFuture.completedFuture(result);
    }
}
