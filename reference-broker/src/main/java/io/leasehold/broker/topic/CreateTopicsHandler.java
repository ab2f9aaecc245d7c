package io.leasehold.broker.topic;

import io.leasehold.broker.protocol.ApiHandler;
import io.leasehold.broker.protocol.KafkaRequest;
import io.leasehold.routing.keys.KeySchema;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResult;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * CreateTopics. Partition count is honoured; there is one copy of the data (shared storage), so
 * any replication factor is accepted and reported as 1; topic configs are accepted and ignored.
 */
public final class CreateTopicsHandler implements ApiHandler {

    private final TopicStore topics;
    private final int defaultPartitions;

    public CreateTopicsHandler(TopicStore topics, int defaultPartitions) {
        this.topics = topics;
        this.defaultPartitions = defaultPartitions;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
        CreateTopicsRequestData data = request.data(CreateTopicsRequestData.class);
        Set<String> seen = new HashSet<>();
        Set<String> duplicated = new HashSet<>();
        data.topics().forEach(topic -> {
            if (!seen.add(topic.name())) {
                duplicated.add(topic.name());
            }
        });
        List<CompletableFuture<CreatableTopicResult>> results = new ArrayList<>();
        for (CreatableTopic topic : data.topics()) {
            if (duplicated.contains(topic.name())) {
                results.add(done(failed(topic.name(), Errors.INVALID_REQUEST, "topic named more than once in the request")));
            } else {
                results.add(create(topic, data.validateOnly()));
            }
        }
        return CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).thenApply(ignored -> {
            CreateTopicsResponseData response = new CreateTopicsResponseData();
            results.forEach(result -> response.topics().add(result.join()));
            return response;
        });
    }

    private CompletableFuture<CreatableTopicResult> create(CreatableTopic topic, boolean validateOnly) {
        String name = topic.name();
        if (!KeySchema.isValidTopic(name)) {
            return done(failed(name, Errors.INVALID_TOPIC_EXCEPTION,
                    "topic name must be 1..249 characters of [a-zA-Z0-9._-], not '.' or '..'"));
        }
        if (!topic.assignments().isEmpty()) {
            return done(failed(name, Errors.INVALID_REQUEST,
                    "manual replica assignment is not supported; give numPartitions instead"));
        }
        int partitions = topic.numPartitions() == -1 ? defaultPartitions : topic.numPartitions();
        if (partitions < 1) {
            return done(failed(name, Errors.INVALID_PARTITIONS, "numPartitions must be at least 1, got " + partitions));
        }
        if (topic.replicationFactor() == 0 || topic.replicationFactor() < -1) {
            return done(failed(name, Errors.INVALID_REPLICATION_FACTOR,
                    "replicationFactor must be -1 or at least 1, got " + topic.replicationFactor()));
        }
        if (validateOnly) {
            return topics.find(name).thenApply(existing -> existing.isPresent()
                    ? failed(name, Errors.TOPIC_ALREADY_EXISTS, "topic '" + name + "' already exists")
                    : created(name, Uuid.ZERO_UUID, partitions));
        }
        return topics.create(name, partitions).thenApply(result -> result
                .map(meta -> created(name, meta.topicId(), partitions))
                .orElseGet(() -> failed(name, Errors.TOPIC_ALREADY_EXISTS, "topic '" + name + "' already exists")));
    }

    private static CreatableTopicResult created(String name, Uuid id, int partitions) {
        return new CreatableTopicResult().setName(name).setTopicId(id).setErrorCode(Errors.NONE.code())
                .setNumPartitions(partitions).setReplicationFactor((short) 1);
    }

    private static CreatableTopicResult failed(String name, Errors error, String message) {
        return new CreatableTopicResult().setName(name).setErrorCode(error.code()).setErrorMessage(message)
                .setNumPartitions(-1).setReplicationFactor((short) -1);
    }

    private static CompletableFuture<CreatableTopicResult> done(CreatableTopicResult result) {
        return CompletableFuture.completedFuture(result);
    }
}
