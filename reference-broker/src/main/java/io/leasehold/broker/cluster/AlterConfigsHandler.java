package io.leasehold.broker.cluster;

import io.leasehold.broker.protocol.ApiHandler;
import io.leasehold.broker.protocol.KafkaRequest;
import io.leasehold.broker.topic.TopicStore;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsRequestData.AlterConfigsResource;
import org.apache.kafka.common.message.AlterConfigsRequestData.AlterableConfig;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.AlterConfigsResponseData.AlterConfigsResourceResponse;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * AlterConfigs (the non-incremental form): a topic's config overrides are replaced by the
 * request's set and stored in etcd, where {@link DescribeConfigsHandler} reads them. Values are
 * stored, not interpreted: this broker's storage has no retention or compaction to configure.
 * Broker configs are static here, so altering them is refused with INVALID_REQUEST.
 */
public final class AlterConfigsHandler implements ApiHandler {

    private final TopicStore topics;

    public AlterConfigsHandler(TopicStore topics) {
        this.topics = topics;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
        AlterConfigsRequestData data = request.data(AlterConfigsRequestData.class);
        List<CompletableFuture<AlterConfigsResourceResponse>> results = new ArrayList<>();
        for (AlterConfigsResource resource : data.resources()) {
            results.add(alter(resource, data.validateOnly()));
        }
        return CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).thenApply(ignored -> {
            AlterConfigsResponseData response = new AlterConfigsResponseData();
            results.forEach(result -> response.responses().add(result.join()));
            return response;
        });
    }

    private CompletableFuture<AlterConfigsResourceResponse> alter(AlterConfigsResource resource, boolean validateOnly) {
        AlterConfigsResourceResponse result = new AlterConfigsResourceResponse()
                .setResourceType(resource.resourceType()).setResourceName(resource.resourceName());
        if (resource.resourceType() != ConfigResource.Type.TOPIC.id()) {
            return CompletableFuture.completedFuture(result.setErrorCode(Errors.INVALID_REQUEST.code())
                    .setErrorMessage("only topic configs can be altered, got resource type " + resource.resourceType()));
        }
        Map<String, String> configs = new LinkedHashMap<>();
        for (AlterableConfig config : resource.configs()) {
            if (config.value() == null) {
                return CompletableFuture.completedFuture(result.setErrorCode(Errors.INVALID_CONFIG.code())
                        .setErrorMessage("config '" + config.name() + "' has no value"));
            }
            configs.put(config.name(), config.value());
        }
        String topic = resource.resourceName();
        CompletableFuture<Boolean> applied = validateOnly
                ? topics.find(topic).thenApply(found -> found.isPresent())
                : topics.replaceConfigs(topic, configs);
        return applied.thenApply(exists -> exists ? result.setErrorCode(Errors.NONE.code())
                : result.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                        .setErrorMessage("topic " + topic + " does not exist"));
    }
}
