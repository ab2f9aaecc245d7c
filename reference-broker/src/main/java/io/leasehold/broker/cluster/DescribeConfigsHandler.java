package io.leasehold.broker.cluster;

import io.leasehold.broker.protocol.ApiHandler;
import io.leasehold.broker.protocol.KafkaRequest;
import io.leasehold.broker.topic.TopicStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData.DescribeConfigsResource;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResourceResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResult;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * DescribeConfigs, enough for admin tools: a topic shows the overrides AlterConfigs stored (only
 * those named, when the request names some), the
 * cluster-wide broker defaults are empty, and this broker's own resource shows its
 * {@code broker.id}. Like Kafka, a broker asked for another broker's configs answers
 * INVALID_REQUEST.
 */
public final class DescribeConfigsHandler implements ApiHandler {

    /** DescribeConfigs' config source for a per-topic override. */
    private static final byte DYNAMIC_TOPIC_CONFIG = 1;

    private final int brokerId;
    private final TopicStore topics;

    public DescribeConfigsHandler(int brokerId, TopicStore topics) {
        this.brokerId = brokerId;
        this.topics = topics;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
        DescribeConfigsRequestData data = request.data(DescribeConfigsRequestData.class);
        List<CompletableFuture<DescribeConfigsResult>> results = new ArrayList<>();
        for (DescribeConfigsResource resource : data.resources()) {
            results.add(describe(resource));
        }
        return CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).thenApply(ignored -> {
            DescribeConfigsResponseData response = new DescribeConfigsResponseData();
            results.forEach(result -> response.results().add(result.join()));
            return response;
        });
    }

    private CompletableFuture<DescribeConfigsResult> describe(DescribeConfigsResource resource) {
        DescribeConfigsResult result = new DescribeConfigsResult().setResourceType(resource.resourceType())
                .setResourceName(resource.resourceName());
        if (resource.resourceType() == ConfigResource.Type.TOPIC.id()) {
            String topic = resource.resourceName();
            return topics.find(topic).thenCombine(topics.configs(topic), (found, configs) -> {
                if (found.isEmpty()) {
                    return result.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                            .setErrorMessage("topic " + topic + " does not exist");
                }
                configs.forEach((name, value) -> {
                    if (resource.configurationKeys() == null || resource.configurationKeys().contains(name)) {
                        result.configs().add(new DescribeConfigsResourceResult().setName(name).setValue(value)
                                .setReadOnly(false).setConfigSource(DYNAMIC_TOPIC_CONFIG).setIsSensitive(false));
                    }
                });
                return result;
            });
        }
        if (resource.resourceType() != ConfigResource.Type.BROKER.id()) {
            return CompletableFuture.completedFuture(result.setErrorCode(Errors.INVALID_REQUEST.code())
                    .setErrorMessage("only topic and broker configs are served, got resource type "
                            + resource.resourceType()));
        }
        if (resource.resourceName().isEmpty()) {
            return CompletableFuture.completedFuture(result);
        }
        if (!resource.resourceName().equals(Integer.toString(brokerId))) {
            return CompletableFuture.completedFuture(result.setErrorCode(Errors.INVALID_REQUEST.code())
                    .setErrorMessage("unexpected broker id, expected " + brokerId + " but received "
                            + resource.resourceName()));
        }
        result.configs().add(new DescribeConfigsResourceResult().setName("broker.id")
                .setValue(Integer.toString(brokerId)).setReadOnly(true)
                .setConfigSource((byte) 4).setIsSensitive(false));
        return CompletableFuture.completedFuture(result);
    }
}
