package io.leasehold.proxy.access;

import io.leasehold.proxy.exchange.ResourceListApi;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.BiPredicate;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.ApiError;

/**
 * The {@link ResourceListApi} of each API the proxy answers resource by resource: topics for
 * CreateTopics, DeleteTopics, CreatePartitions, OffsetCommit and OffsetDelete, config resources
 * (type and name) for DescribeConfigs, AlterConfigs and IncrementalAlterConfigs.
 */
final class AdminResourceLists {
    static final ResourceListApi<CreateTopicsRequestData, CreateTopicsResponseData,
            CreateTopicsRequestData.CreatableTopic, CreateTopicsResponseData.CreatableTopicResult> CREATE_TOPICS =
            new Lists<>(CreateTopicsRequestData::topics, CreateTopicsResponseData::new, CreateTopicsResponseData::topics,
                    (result, topic) -> Objects.equals(result.name(), topic.name()),
                    (topic, error) -> new CreateTopicsResponseData.CreatableTopicResult().setName(topic.name())
                            .setErrorCode(error.error().code()).setErrorMessage(error.message()));

    /** DeleteTopics v0-5: topics by name only. */
    static final ResourceListApi<DeleteTopicsRequestData, DeleteTopicsResponseData, String,
            DeleteTopicsResponseData.DeletableTopicResult> DELETE_TOPIC_NAMES =
            new Lists<>(DeleteTopicsRequestData::topicNames, DeleteTopicsResponseData::new,
                    DeleteTopicsResponseData::responses, (result, topic) -> Objects.equals(result.name(), topic),
                    (topic, error) -> new DeleteTopicsResponseData.DeletableTopicResult().setName(topic)
                            .setErrorCode(error.error().code()).setErrorMessage(error.message()));

    static final ResourceListApi<CreatePartitionsRequestData, CreatePartitionsResponseData,
            CreatePartitionsRequestData.CreatePartitionsTopic,
            CreatePartitionsResponseData.CreatePartitionsTopicResult> CREATE_PARTITIONS =
            new Lists<>(CreatePartitionsRequestData::topics, CreatePartitionsResponseData::new,
                    CreatePartitionsResponseData::results, (result, topic) -> Objects.equals(result.name(), topic.name()),
                    (topic, error) -> new CreatePartitionsResponseData.CreatePartitionsTopicResult()
                            .setName(topic.name()).setErrorCode(error.error().code())
                            .setErrorMessage(error.message()));

    static final ResourceListApi<DescribeConfigsRequestData, DescribeConfigsResponseData,
            DescribeConfigsRequestData.DescribeConfigsResource,
            DescribeConfigsResponseData.DescribeConfigsResult> DESCRIBE_CONFIGS =
            new Lists<>(DescribeConfigsRequestData::resources, DescribeConfigsResponseData::new,
                    DescribeConfigsResponseData::results,
                    (result, resource) -> sameConfig(result.resourceType(), result.resourceName(),
                            resource.resourceType(), resource.resourceName()),
                    (resource, error) -> new DescribeConfigsResponseData.DescribeConfigsResult()
                            .setResourceType(resource.resourceType()).setResourceName(resource.resourceName())
                            .setErrorCode(error.error().code()).setErrorMessage(error.message()));

    static final ResourceListApi<AlterConfigsRequestData, AlterConfigsResponseData,
            AlterConfigsRequestData.AlterConfigsResource,
            AlterConfigsResponseData.AlterConfigsResourceResponse> ALTER_CONFIGS =
            new Lists<>(AlterConfigsRequestData::resources, AlterConfigsResponseData::new,
                    AlterConfigsResponseData::responses,
                    (result, resource) -> sameConfig(result.resourceType(), result.resourceName(),
                            resource.resourceType(), resource.resourceName()),
                    (resource, error) -> new AlterConfigsResponseData.AlterConfigsResourceResponse()
                            .setResourceType(resource.resourceType()).setResourceName(resource.resourceName())
                            .setErrorCode(error.error().code()).setErrorMessage(error.message()));

    static final ResourceListApi<IncrementalAlterConfigsRequestData, IncrementalAlterConfigsResponseData,
            IncrementalAlterConfigsRequestData.AlterConfigsResource,
            IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse> INCREMENTAL_ALTER_CONFIGS =
            new Lists<>(IncrementalAlterConfigsRequestData::resources, IncrementalAlterConfigsResponseData::new,
                    IncrementalAlterConfigsResponseData::responses,
                    (result, resource) -> sameConfig(result.resourceType(), result.resourceName(),
                            resource.resourceType(), resource.resourceName()),
                    (resource, error) -> new IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse()
                            .setResourceType(resource.resourceType()).setResourceName(resource.resourceName())
                            .setErrorCode(error.error().code()).setErrorMessage(error.message()));

    /** OffsetCommit: topics by name, or by id from v10 (names empty). */
    static final ResourceListApi<OffsetCommitRequestData, OffsetCommitResponseData,
            OffsetCommitRequestData.OffsetCommitRequestTopic, OffsetCommitResponseData.OffsetCommitResponseTopic>
            OFFSET_COMMIT = new Lists<>(OffsetCommitRequestData::topics, OffsetCommitResponseData::new,
                    OffsetCommitResponseData::topics,
                    (result, topic) -> Objects.equals(result.name(), topic.name())
                            && Objects.equals(result.topicId(), topic.topicId()),
                    (topic, error) -> new OffsetCommitResponseData.OffsetCommitResponseTopic().setName(topic.name())
                            .setTopicId(topic.topicId()).setPartitions(new ArrayList<>(topic.partitions().stream()
                                    .map(p -> new OffsetCommitResponseData.OffsetCommitResponsePartition()
                                            .setPartitionIndex(p.partitionIndex()).setErrorCode(error.error().code()))
                                    .toList())));

    static final ResourceListApi<OffsetDeleteRequestData, OffsetDeleteResponseData,
            OffsetDeleteRequestData.OffsetDeleteRequestTopic, OffsetDeleteResponseData.OffsetDeleteResponseTopic>
            OFFSET_DELETE = new Lists<>(OffsetDeleteRequestData::topics, OffsetDeleteResponseData::new,
                    OffsetDeleteResponseData::topics, (result, topic) -> Objects.equals(result.name(), topic.name()),
                    (topic, error) -> {
                        OffsetDeleteResponseData.OffsetDeleteResponsePartitionCollection partitions =
                                new OffsetDeleteResponseData.OffsetDeleteResponsePartitionCollection();
                        topic.partitions().forEach(p -> partitions.add(
                                new OffsetDeleteResponseData.OffsetDeleteResponsePartition()
                                        .setPartitionIndex(p.partitionIndex()).setErrorCode(error.error().code())));
                        return new OffsetDeleteResponseData.OffsetDeleteResponseTopic().setName(topic.name())
                                .setPartitions(partitions);
                    });

    private AdminResourceLists() {
    }

    /**
     * DeleteTopics v6+, whose topics are given by name or by id.
     *
     * @param disclosed the names of the topics given by id that the client may be told (it may
     *                  describe them); any other refused id is answered without a name, as Kafka does
     */
    static ResourceListApi<DeleteTopicsRequestData, DeleteTopicsResponseData, DeleteTopicsRequestData.DeleteTopicState,
            DeleteTopicsResponseData.DeletableTopicResult> deleteTopics(Map<Uuid, String> disclosed) {
        return new Lists<>(DeleteTopicsRequestData::topics, DeleteTopicsResponseData::new,
                DeleteTopicsResponseData::responses,
                (result, topic) -> byId(topic) ? topic.topicId().equals(result.topicId())
                        : Objects.equals(result.name(), topic.name()),
                (topic, error) -> new DeleteTopicsResponseData.DeletableTopicResult()
                        .setName(byId(topic) ? disclosed.get(topic.topicId()) : topic.name())
                        .setTopicId(topic.topicId()).setErrorCode(error.error().code())
                        .setErrorMessage(error.message()));
    }

    private static boolean byId(DeleteTopicsRequestData.DeleteTopicState topic) {
        return topic.name() == null && !Uuid.ZERO_UUID.equals(topic.topicId());
    }

    private static boolean sameConfig(byte resultType, String resultName, byte type, String name) {
        return resultType == type && Objects.equals(resultName, name);
    }

    /** One API's lists, told by the generated classes' own accessors. */
    private record Lists<Q extends ApiMessage, R extends ApiMessage, E, A>(
            Function<Q, Collection<E>> requestResources, Supplier<R> newResponse,
            Function<R, Collection<A>> responseResults, BiPredicate<A, E> matches,
            BiFunction<E, ApiError, A> refusal) implements ResourceListApi<Q, R, E, A> {
        @Override
        public Collection<E> resources(Q request) {
            return requestResources.apply(request);
        }

        @Override
        public R emptyResponse() {
            return newResponse.get();
        }

        @Override
        public Collection<A> results(R response) {
            return responseResults.apply(response);
        }

        @Override
        public boolean answers(A result, E resource) {
            return matches.test(result, resource);
        }

        @Override
        public A refused(E resource, ApiError error) {
            return refusal.apply(resource, error);
        }
    }
}
