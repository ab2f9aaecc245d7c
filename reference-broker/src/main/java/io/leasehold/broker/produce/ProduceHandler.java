package io.leasehold.broker.produce;

import io.leasehold.broker.protocol.ApiHandler;
import io.leasehold.broker.protocol.KafkaRequest;
import io.leasehold.broker.storage.RecordBatches;
import io.leasehold.broker.storage.RecordBatches.ValidatedRecords;
import io.leasehold.broker.topic.TopicMeta;
import io.leasehold.broker.topic.TopicStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * Produce: each partition is appended independently (a partition owned elsewhere fails alone
 * with NOT_LEADER_OR_FOLLOWER), and the answer comes after every partition's commit. With
 * acks=0 the work is the same but no response is sent.
 */
public final class ProduceHandler implements ApiHandler {

    private final TopicStore topics;
    private final PartitionWriters writers;
    private final EtcdTrouble etcdTrouble;

    public ProduceHandler(TopicStore topics, PartitionWriters writers, EtcdTrouble etcdTrouble) {
        this.topics = topics;
        this.writers = writers;
        this.etcdTrouble = etcdTrouble;
    }

    private record PartitionResult(String topic, int partition, CompletableFuture<AppendOutcome> outcome) {
    }

    @Override
    public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
        ProduceRequestData data = request.data(ProduceRequestData.class);
        short acks = data.acks();
        List<PartitionResult> results = new ArrayList<>();
        for (TopicProduceData topic : data.topicData()) {
            CompletableFuture<Optional<TopicMeta>> meta = topics.find(topic.name())
                    .orTimeout(etcdTrouble.timeout().toMillis(), TimeUnit.MILLISECONDS);
            for (PartitionProduceData partition : topic.partitionData()) {
                CompletableFuture<AppendOutcome> outcome = meta.handle((found, lookupError) -> lookupError != null
                        ? failed(etcdTrouble.lookupFailed(), "could not read topic " + topic.name() + " from etcd: "
                                + lookupError.getMessage())
                        : append(found, topic.name(), partition, acks, data.transactionalId()).exceptionally(error ->
                                AppendOutcome.failed(Errors.UNKNOWN_SERVER_ERROR,
                                        topic.name() + "-" + partition.index() + ": " + error.getMessage())))
                        .thenCompose(f -> f);
                results.add(new PartitionResult(topic.name(), partition.index(), outcome));
            }
        }
        CompletableFuture<Void> all = CompletableFuture.allOf(results.stream()
                .map(PartitionResult::outcome).toArray(CompletableFuture[]::new));
        return all.thenApply(ignored -> acks == 0 ? null : response(results));
    }

    private CompletableFuture<AppendOutcome> append(Optional<TopicMeta> meta, String topic, PartitionProduceData partition,
                                                    short acks, String transactionalId) {
        if (acks != 0 && acks != 1 && acks != -1) {
            return failed(Errors.INVALID_REQUIRED_ACKS, "acks must be -1, 0 or 1, got " + acks);
        }
        if (transactionalId != null) {
            return failed(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
                    "transactions are not supported by the reference broker");
        }
        if (meta.isEmpty() || !meta.get().hasPartition(partition.index())) {
            return failed(Errors.UNKNOWN_TOPIC_OR_PARTITION, "no partition " + topic + "-" + partition.index());
        }
        ValidatedRecords records;
        try {
            records = RecordBatches.validate(partition.records());
        } catch (InvalidRecordException e) {
            return failed(Errors.INVALID_RECORD, topic + "-" + partition.index() + ": " + e.getMessage());
        } catch (CorruptRecordException e) {
            return failed(Errors.CORRUPT_MESSAGE, topic + "-" + partition.index() + ": " + e.getMessage());
        }
        return writers.append(meta.get(), partition.index(), records);
    }

    private static CompletableFuture<AppendOutcome> failed(Errors error, String message) {
        return CompletableFuture.completedFuture(AppendOutcome.failed(error, message));
    }

    private static ProduceResponseData response(List<PartitionResult> results) {
        ProduceResponseData response = new ProduceResponseData();
        for (PartitionResult result : results) {
            TopicProduceResponse topic = response.responses().find(result.topic(), Uuid.ZERO_UUID);
            if (topic == null) {
                topic = new TopicProduceResponse().setName(result.topic());
                response.responses().add(topic);
            }
            AppendOutcome outcome = result.outcome().join();
            topic.partitionResponses().add(new PartitionProduceResponse()
                    .setIndex(result.partition())
                    .setErrorCode(outcome.error().code())
                    .setErrorMessage(outcome.message())
                    .setBaseOffset(outcome.baseOffset())
                    .setLogAppendTimeMs(-1)
                    .setLogStartOffset(outcome.logStartOffset()));
        }
        return response;
    }
}
