package io.leasehold.broker.cluster;

import io.leasehold.broker.protocol.ApiHandler;
import io.leasehold.broker.protocol.KafkaRequest;
import io.leasehold.broker.topic.TopicMeta;
import io.leasehold.broker.topic.TopicStore;
import io.leasehold.routing.keys.KeySchema;
import io.leasehold.routing.snapshot.BrokerAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * Metadata: every live broker, and per partition the owner as leader (or a deterministic live
 * broker when nobody owns it). Unknown topics are created when the client allows it, like a
 * Kafka broker with {@code auto.create.topics.enable=true}.
 */
public final class MetadataHandler implements ApiHandler {

    /** Kafka's "authorized operations not requested" marker. */
    private static final int NO_AUTHORIZED_OPERATIONS = Integer.MIN_VALUE;

    /** One requested topic: what it is (null if it does not exist) and its answer so far. */
    private record Answer(TopicMeta meta, MetadataResponseTopic topic) {
    }

    private final ClusterView cluster;
    private final TopicStore topics;
    private final String clusterId;
    private final int autoCreatePartitions;

    public MetadataHandler(ClusterView cluster, TopicStore topics, String clusterId, int autoCreatePartitions) {
        this.cluster = cluster;
        this.topics = topics;
        this.clusterId = clusterId;
        this.autoCreatePartitions = autoCreatePartitions;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
        MetadataRequestData data = request.data(MetadataRequestData.class);
        boolean allTopics = data.topics() == null || (request.version() == 0 && data.topics().isEmpty());
        boolean autoCreate = request.version() < 4 || data.allowAutoTopicCreation();
        return topics.all().thenCompose(existing -> {
            List<CompletableFuture<Answer>> answers = new ArrayList<>();
            if (allTopics) {
                existing.values().forEach(meta -> answers.add(CompletableFuture.completedFuture(describe(meta))));
            } else {
                for (MetadataRequestData.MetadataRequestTopic topic : data.topics()) {
                    answers.add(answer(topic, existing, autoCreate));
                }
            }
            return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new))
                    .thenCombine(cluster.read(), (ignored, snapshot) -> response(snapshot, answers));
        });
    }

    private CompletableFuture<Answer> answer(MetadataRequestData.MetadataRequestTopic requested,
                                                            Map<String, TopicMeta> existing, boolean autoCreate) {
        String name = requested.name();
        if (name == null) {
            Uuid id = requested.topicId();
            Optional<TopicMeta> byId = existing.values().stream().filter(meta -> meta.topicId().equals(id)).findFirst();
            return CompletableFuture.completedFuture(byId.map(this::describe)
                    .orElseGet(() -> error(null, id, Errors.UNKNOWN_TOPIC_ID)));
        }
        TopicMeta meta = existing.get(name);
        if (meta != null) {
            return CompletableFuture.completedFuture(describe(meta));
        }
        if (!KeySchema.isValidTopic(name)) {
            return CompletableFuture.completedFuture(error(name, Uuid.ZERO_UUID, Errors.INVALID_TOPIC_EXCEPTION));
        }
        if (!autoCreate || autoCreatePartitions <= 0) {
            return CompletableFuture.completedFuture(error(name, Uuid.ZERO_UUID, Errors.UNKNOWN_TOPIC_OR_PARTITION));
        }
        return topics.create(name, autoCreatePartitions)
                .thenCompose(created -> created.isPresent() ? CompletableFuture.completedFuture(created)
                        : topics.find(name))
                .thenApply(found -> found.map(this::describe)
                        .orElseGet(() -> error(name, Uuid.ZERO_UUID, Errors.UNKNOWN_TOPIC_OR_PARTITION)));
    }

    private Answer describe(TopicMeta meta) {
        return new Answer(meta, new MetadataResponseTopic()
                .setName(meta.name())
                .setTopicId(meta.topicId())
                .setErrorCode(Errors.NONE.code())
                .setIsInternal(false)
                .setTopicAuthorizedOperations(NO_AUTHORIZED_OPERATIONS));
    }

    private static Answer error(String name, Uuid id, Errors error) {
        // A topic asked for by id has no name to echo; names are only nullable from v12 on.
        return new Answer(null, new MetadataResponseTopic().setName(name == null ? "" : name).setTopicId(id).setErrorCode(error.code())
                .setTopicAuthorizedOperations(NO_AUTHORIZED_OPERATIONS));
    }

    private MetadataResponseData response(ClusterView.Snapshot snapshot, List<CompletableFuture<Answer>> answers) {
        MetadataResponseData response = new MetadataResponseData()
                .setClusterId(clusterId)
                .setControllerId(snapshot.controllerId())
                .setClusterAuthorizedOperations(NO_AUTHORIZED_OPERATIONS);
        for (BrokerAddress broker : snapshot.brokers()) {
            response.brokers().add(new MetadataResponseBroker()
                    .setNodeId(broker.id()).setHost(broker.host()).setPort(broker.port()).setRack(broker.rack()));
        }
        for (CompletableFuture<Answer> future : answers) {
            Answer answer = future.join();
            if (answer.meta() != null) {
                addPartitions(answer.topic(), answer.meta().partitions(), snapshot);
            }
            response.topics().add(answer.topic());
        }
        return response;
    }

    private static void addPartitions(MetadataResponseTopic topic, int count, ClusterView.Snapshot snapshot) {
        for (int partition = 0; partition < count; partition++) {
            int leader = snapshot.leaderOf(topic.name(), partition);
            topic.partitions().add(new MetadataResponsePartition()
                    .setPartitionIndex(partition)
                    .setErrorCode(leader < 0 ? Errors.LEADER_NOT_AVAILABLE.code() : Errors.NONE.code())
                    .setLeaderId(leader)
                    .setLeaderEpoch(-1)
                    .setReplicaNodes(leader < 0 ? List.of() : List.of(leader))
                    .setIsrNodes(leader < 0 ? List.of() : List.of(leader))
                    .setOfflineReplicas(List.of()));
        }
    }
}
