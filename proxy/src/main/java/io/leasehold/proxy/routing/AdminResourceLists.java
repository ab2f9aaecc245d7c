package io.leasehold.proxy.routing;

import java.util.Collection;
import java.util.Map;
import java.util.Objects;
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
import org.apache.kafka.common.requests.ApiError;

/**
 * The {@link ResourceListApi} of each admin API the proxy answers resource by resource: topics
 * for CreateTopics, DeleteTopics and CreatePartitions, config resources (type and name) for
 * DescribeConfigs, AlterConfigs and IncrementalAlterConfigs.
 */
final class AdminResourceLists {
    static final ResourceListApi<CreateTopicsRequestData, CreateTopicsResponseData,
            CreateTopicsRequestData.CreatableTopic, CreateTopicsResponseData.CreatableTopicResult> CREATE_TOPICS =
            new CreateTopics();
    static final ResourceListApi<DeleteTopicsRequestData, DeleteTopicsResponseData, String,
            DeleteTopicsResponseData.DeletableTopicResult> DELETE_TOPIC_NAMES = new DeleteTopicNames();
    static final ResourceListApi<CreatePartitionsRequestData, CreatePartitionsResponseData,
            CreatePartitionsRequestData.CreatePartitionsTopic,
            CreatePartitionsResponseData.CreatePartitionsTopicResult> CREATE_PARTITIONS = new CreatePartitions();
    static final ResourceListApi<DescribeConfigsRequestData, DescribeConfigsResponseData,
            DescribeConfigsRequestData.DescribeConfigsResource,
            DescribeConfigsResponseData.DescribeConfigsResult> DESCRIBE_CONFIGS = new DescribeConfigs();
    static final ResourceListApi<AlterConfigsRequestData, AlterConfigsResponseData,
            AlterConfigsRequestData.AlterConfigsResource,
            AlterConfigsResponseData.AlterConfigsResourceResponse> ALTER_CONFIGS = new AlterConfigs();
    static final ResourceListApi<IncrementalAlterConfigsRequestData, IncrementalAlterConfigsResponseData,
            IncrementalAlterConfigsRequestData.AlterConfigsResource,
            IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse> INCREMENTAL_ALTER_CONFIGS =
            new IncrementalAlterConfigs();

    private AdminResourceLists() {
    }

    /**
     * DeleteTopics v6+, whose topics are named or given by id.
     *
     * @param disclosed the names of the topics given by id that the client may be told (it may
     *                  describe them); any other refused id is answered without a name, as Kafka does
     */
    static ResourceListApi<DeleteTopicsRequestData, DeleteTopicsResponseData, DeleteTopicsRequestData.DeleteTopicState,
            DeleteTopicsResponseData.DeletableTopicResult> deleteTopics(Map<Uuid, String> disclosed) {
        return new DeleteTopicStates(disclosed);
    }

    private static final class CreateTopics implements ResourceListApi<CreateTopicsRequestData,
            CreateTopicsResponseData, CreateTopicsRequestData.CreatableTopic,
            CreateTopicsResponseData.CreatableTopicResult> {
        @Override
        public Collection<CreateTopicsRequestData.CreatableTopic> resources(CreateTopicsRequestData request) {
            return request.topics();
        }

        @Override
        public CreateTopicsResponseData emptyResponse() {
            return new CreateTopicsResponseData();
        }

        @Override
        public Collection<CreateTopicsResponseData.CreatableTopicResult> results(CreateTopicsResponseData response) {
            return response.topics();
        }

        @Override
        public boolean answers(CreateTopicsResponseData.CreatableTopicResult result,
                               CreateTopicsRequestData.CreatableTopic topic) {
            return Objects.equals(result.name(), topic.name());
        }

        @Override
        public CreateTopicsResponseData.CreatableTopicResult refused(CreateTopicsRequestData.CreatableTopic topic,
                                                                     ApiError error) {
            return new CreateTopicsResponseData.CreatableTopicResult().setName(topic.name())
                    .setErrorCode(error.error().code()).setErrorMessage(error.message());
        }
    }

    /** Topics in DeleteTopics v0-5: names only. */
    private static final class DeleteTopicNames implements ResourceListApi<DeleteTopicsRequestData,
            DeleteTopicsResponseData, String, DeleteTopicsResponseData.DeletableTopicResult> {
        @Override
        public Collection<String> resources(DeleteTopicsRequestData request) {
            return request.topicNames();
        }

        @Override
        public DeleteTopicsResponseData emptyResponse() {
            return new DeleteTopicsResponseData();
        }

        @Override
        public Collection<DeleteTopicsResponseData.DeletableTopicResult> results(DeleteTopicsResponseData response) {
            return response.responses();
        }

        @Override
        public boolean answers(DeleteTopicsResponseData.DeletableTopicResult result, String topic) {
            return Objects.equals(result.name(), topic);
        }

        @Override
        public DeleteTopicsResponseData.DeletableTopicResult refused(String topic, ApiError error) {
            return new DeleteTopicsResponseData.DeletableTopicResult().setName(topic)
                    .setErrorCode(error.error().code()).setErrorMessage(error.message());
        }
    }

    /** Topics in DeleteTopics v6+: each by name or by id. */
    private static final class DeleteTopicStates implements ResourceListApi<DeleteTopicsRequestData,
            DeleteTopicsResponseData, DeleteTopicsRequestData.DeleteTopicState,
            DeleteTopicsResponseData.DeletableTopicResult> {
        private final Map<Uuid, String> disclosed;

        DeleteTopicStates(Map<Uuid, String> disclosed) {
            this.disclosed = disclosed;
        }

        @Override
        public Collection<DeleteTopicsRequestData.DeleteTopicState> resources(DeleteTopicsRequestData request) {
            return request.topics();
        }

        @Override
        public DeleteTopicsResponseData emptyResponse() {
            return new DeleteTopicsResponseData();
        }

        @Override
        public Collection<DeleteTopicsResponseData.DeletableTopicResult> results(DeleteTopicsResponseData response) {
            return response.responses();
        }

        @Override
        public boolean answers(DeleteTopicsResponseData.DeletableTopicResult result,
                               DeleteTopicsRequestData.DeleteTopicState topic) {
            return byId(topic) ? topic.topicId().equals(result.topicId()) : Objects.equals(result.name(), topic.name());
        }

        @Override
        public DeleteTopicsResponseData.DeletableTopicResult refused(DeleteTopicsRequestData.DeleteTopicState topic,
                                                                     ApiError error) {
            return new DeleteTopicsResponseData.DeletableTopicResult()
                    .setName(byId(topic) ? disclosed.get(topic.topicId()) : topic.name())
                    .setTopicId(topic.topicId()).setErrorCode(error.error().code())
                    .setErrorMessage(error.message());
        }

        private static boolean byId(DeleteTopicsRequestData.DeleteTopicState topic) {
            return topic.name() == null && !Uuid.ZERO_UUID.equals(topic.topicId());
        }
    }

    private static final class CreatePartitions implements ResourceListApi<CreatePartitionsRequestData,
            CreatePartitionsResponseData, CreatePartitionsRequestData.CreatePartitionsTopic,
            CreatePartitionsResponseData.CreatePartitionsTopicResult> {
        @Override
        public Collection<CreatePartitionsRequestData.CreatePartitionsTopic> resources(
                CreatePartitionsRequestData request) {
            return request.topics();
        }

        @Override
        public CreatePartitionsResponseData emptyResponse() {
            return new CreatePartitionsResponseData();
        }

        @Override
        public Collection<CreatePartitionsResponseData.CreatePartitionsTopicResult> results(
                CreatePartitionsResponseData response) {
            return response.results();
        }

        @Override
        public boolean answers(CreatePartitionsResponseData.CreatePartitionsTopicResult result,
                               CreatePartitionsRequestData.CreatePartitionsTopic topic) {
            return Objects.equals(result.name(), topic.name());
        }

        @Override
        public CreatePartitionsResponseData.CreatePartitionsTopicResult refused(
                CreatePartitionsRequestData.CreatePartitionsTopic topic, ApiError error) {
            return new CreatePartitionsResponseData.CreatePartitionsTopicResult().setName(topic.name())
                    .setErrorCode(error.error().code()).setErrorMessage(error.message());
        }
    }

    private static final class DescribeConfigs implements ResourceListApi<DescribeConfigsRequestData,
            DescribeConfigsResponseData, DescribeConfigsRequestData.DescribeConfigsResource,
            DescribeConfigsResponseData.DescribeConfigsResult> {
        @Override
        public Collection<DescribeConfigsRequestData.DescribeConfigsResource> resources(
                DescribeConfigsRequestData request) {
            return request.resources();
        }

        @Override
        public DescribeConfigsResponseData emptyResponse() {
            return new DescribeConfigsResponseData();
        }

        @Override
        public Collection<DescribeConfigsResponseData.DescribeConfigsResult> results(
                DescribeConfigsResponseData response) {
            return response.results();
        }

        @Override
        public boolean answers(DescribeConfigsResponseData.DescribeConfigsResult result,
                               DescribeConfigsRequestData.DescribeConfigsResource resource) {
            return result.resourceType() == resource.resourceType()
                    && Objects.equals(result.resourceName(), resource.resourceName());
        }

        @Override
        public DescribeConfigsResponseData.DescribeConfigsResult refused(
                DescribeConfigsRequestData.DescribeConfigsResource resource, ApiError error) {
            return new DescribeConfigsResponseData.DescribeConfigsResult().setResourceType(resource.resourceType())
                    .setResourceName(resource.resourceName()).setErrorCode(error.error().code())
                    .setErrorMessage(error.message());
        }
    }

    private static final class AlterConfigs implements ResourceListApi<AlterConfigsRequestData,
            AlterConfigsResponseData, AlterConfigsRequestData.AlterConfigsResource,
            AlterConfigsResponseData.AlterConfigsResourceResponse> {
        @Override
        public Collection<AlterConfigsRequestData.AlterConfigsResource> resources(AlterConfigsRequestData request) {
            return request.resources();
        }

        @Override
        public AlterConfigsResponseData emptyResponse() {
            return new AlterConfigsResponseData();
        }

        @Override
        public Collection<AlterConfigsResponseData.AlterConfigsResourceResponse> results(
                AlterConfigsResponseData response) {
            return response.responses();
        }

        @Override
        public boolean answers(AlterConfigsResponseData.AlterConfigsResourceResponse result,
                               AlterConfigsRequestData.AlterConfigsResource resource) {
            return result.resourceType() == resource.resourceType()
                    && Objects.equals(result.resourceName(), resource.resourceName());
        }

        @Override
        public AlterConfigsResponseData.AlterConfigsResourceResponse refused(
                AlterConfigsRequestData.AlterConfigsResource resource, ApiError error) {
            return new AlterConfigsResponseData.AlterConfigsResourceResponse().setResourceType(resource.resourceType())
                    .setResourceName(resource.resourceName()).setErrorCode(error.error().code())
                    .setErrorMessage(error.message());
        }
    }

    private static final class IncrementalAlterConfigs implements ResourceListApi<IncrementalAlterConfigsRequestData,
            IncrementalAlterConfigsResponseData, IncrementalAlterConfigsRequestData.AlterConfigsResource,
            IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse> {
        @Override
        public Collection<IncrementalAlterConfigsRequestData.AlterConfigsResource> resources(
                IncrementalAlterConfigsRequestData request) {
            return request.resources();
        }

        @Override
        public IncrementalAlterConfigsResponseData emptyResponse() {
            return new IncrementalAlterConfigsResponseData();
        }

        @Override
        public Collection<IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse> results(
                IncrementalAlterConfigsResponseData response) {
            return response.responses();
        }

        @Override
        public boolean answers(IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse result,
                               IncrementalAlterConfigsRequestData.AlterConfigsResource resource) {
            return result.resourceType() == resource.resourceType()
                    && Objects.equals(result.resourceName(), resource.resourceName());
        }

        @Override
        public IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse refused(
                IncrementalAlterConfigsRequestData.AlterConfigsResource resource, ApiError error) {
            return new IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse()
                    .setResourceType(resource.resourceType()).setResourceName(resource.resourceName())
                    .setErrorCode(error.error().code()).setErrorMessage(error.message());
        }
    }
}
