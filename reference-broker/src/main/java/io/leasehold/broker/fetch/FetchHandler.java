package io.leasehold.broker.fetch;

import io.leasehold.broker.protocol.ApiHandler;
import io.leasehold.broker.protocol.KafkaRequest;
import io.leasehold.broker.storage.CommitSignals;
import io.leasehold.broker.storage.PartitionIndex;
import io.leasehold.broker.storage.PartitionReader;
import io.leasehold.broker.storage.RecordBatches;
import io.leasehold.broker.topic.TopicMeta;
import io.leasehold.broker.topic.TopicStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * Fetch from shared storage: any broker serves any partition, reading the committed index from
 * etcd each time, so data another broker committed is visible at once. A fetch that finds less
 * than {@code min_bytes} looks again when this broker commits to one of its partitions, or
 * after a poll interval (for commits by other brokers), until {@code max_wait_ms} has passed.
 * Fetch sessions are not kept: every answer has session id 0, so clients send full fetches.
 * From v13 on topics are named by id, and answered by id.
 */
public final class FetchHandler implements ApiHandler {

    private static final short FIRST_VERSION_WITH_TOPIC_IDS = 13;

    private final TopicStore topics;
    private final PartitionReader reader;
    private final ScheduledExecutorService scheduler;
    private final Duration pollInterval;
    private final CommitSignals signals;

    public FetchHandler(TopicStore topics, PartitionReader reader, ScheduledExecutorService scheduler, Duration pollInterval,
                        CommitSignals signals) {
        this.topics = topics;
        this.reader = reader;
        this.scheduler = scheduler;
        this.pollInterval = pollInterval;
        this.signals = signals;
    }

    private record PartitionAnswer(String topic, Uuid topicId, PartitionData data, int bytes) {
    }

    @Override
    public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
        FetchRequestData data = request.data(FetchRequestData.class);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, data.maxWaitMs()));
        CompletableFuture<ApiMessage> response = new CompletableFuture<>();
        nameTopics(data, request.version()).thenCompose(named -> {
            List<String> names = data.topics().stream().map(FetchTopic::topic).toList();
            return TopicLookup.resolve(topics, names);
        }).whenComplete((metas, error) -> {
            if (error != null) {
                response.completeExceptionally(error);
            } else {
                attempt(data, metas, deadline, response);
            }
        });
        return response;
    }

    /**
     * From v13 on, topics are named by id only: fills in each known id's name, so the rest of the
     * handler reads by name. An unknown id keeps an empty name, which no topic has.
     */
    private CompletableFuture<Void> nameTopics(FetchRequestData data, short version) {
        if (version < FIRST_VERSION_WITH_TOPIC_IDS) {
            return CompletableFuture.completedFuture(null);
        }
        return topics.all().thenAccept(all -> {
            Map<Uuid, String> names = new HashMap<>();
            all.values().forEach(meta -> names.put(meta.topicId(), meta.name()));
            data.topics().forEach(topic -> topic.setTopic(names.getOrDefault(topic.topicId(), "")));
        });
    }

    private void attempt(FetchRequestData data, Map<String, Optional<TopicMeta>> metas, long deadline,
                         CompletableFuture<ApiMessage> response) {
        readAll(data, metas).whenComplete((answers, error) -> {
            if (error != null) {
                response.completeExceptionally(error);
                return;
            }
            int bytes = answers.stream().mapToInt(PartitionAnswer::bytes).sum();
            boolean failed = answers.stream().anyMatch(answer -> answer.data().errorCode() != Errors.NONE.code());
            long remaining = deadline - System.nanoTime();
            if (bytes >= data.minBytes() || failed || remaining <= 0) {
                response.complete(toResponse(answers));
                return;
            }
            waitForData(data, Math.min(remaining, pollInterval.toNanos()), () -> attempt(data, metas, deadline, response));
        });
    }

    /** Runs {@code next} after {@code delayNanos}, or sooner when one of the partitions gets a local commit. */
    private void waitForData(FetchRequestData data, long delayNanos, Runnable next) {
        AtomicBoolean fired = new AtomicBoolean();
        List<AutoCloseable> registrations = new ArrayList<>();
        AtomicReference<ScheduledFuture<?>> timer = new AtomicReference<>();
        Runnable fire = () -> {
            if (fired.compareAndSet(false, true)) {
                synchronized (registrations) {
                    registrations.forEach(FetchHandler::closeQuietly);
                }
                ScheduledFuture<?> pending = timer.get();
                if (pending != null) {
                    pending.cancel(false);
                }
                next.run();
            }
        };
        synchronized (registrations) {
            for (FetchTopic topic : data.topics()) {
                for (FetchPartition partition : topic.partitions()) {
                    registrations.add(signals.onCommit(topic.topic(), partition.partition(),
                            () -> scheduler.execute(fire)));
                }
            }
        }
        timer.set(scheduler.schedule(fire, delayNanos, TimeUnit.NANOSECONDS));
    }

    private static void closeQuietly(AutoCloseable registration) {
        try {
            registration.close();
        } catch (Exception e) {
            throw new IllegalStateException("could not drop a commit signal registration", e);
        }
    }

    private CompletableFuture<List<PartitionAnswer>> readAll(FetchRequestData data, Map<String, Optional<TopicMeta>> metas) {
        List<CompletableFuture<Optional<PartitionIndex>>> indexes = new ArrayList<>();
        for (FetchTopic topic : data.topics()) {
            Optional<TopicMeta> meta = metas.get(topic.topic());
            for (FetchPartition partition : topic.partitions()) {
                indexes.add(meta.isPresent() && meta.get().hasPartition(partition.partition())
                        ? reader.index(meta.get(), partition.partition())
                        : CompletableFuture.completedFuture(Optional.empty()));
            }
        }
        // Indexes are read from etcd all at once; the files are then read one partition after
        // another so that the response's max_bytes budget is shared in request order.
        return CompletableFuture.allOf(indexes.toArray(CompletableFuture[]::new)).thenCompose(ignored -> {
            CompletableFuture<List<PartitionAnswer>> chain = CompletableFuture.completedFuture(new ArrayList<>());
            int position = 0;
            for (FetchTopic topic : data.topics()) {
                for (FetchPartition partition : topic.partitions()) {
                    Optional<PartitionIndex> index = indexes.get(position++).join();
                    chain = chain.thenCompose(answers -> {
                        int used = answers.stream().mapToInt(PartitionAnswer::bytes).sum();
                        int budget = Math.min(partition.partitionMaxBytes(), Math.max(0, data.maxBytes() - used));
                        return readPartition(topic, metas.get(topic.topic()), index, partition, budget)
                                .thenApply(answer -> {
                                    answers.add(answer);
                                    return answers;
                                });
                    });
                }
            }
            return chain;
        });
    }

    private CompletableFuture<PartitionAnswer> readPartition(FetchTopic fetched, Optional<TopicMeta> meta,
                                                             Optional<PartitionIndex> found, FetchPartition partition,
                                                             int budget) {
        int index = partition.partition();
        String topic = fetched.topic();
        Uuid topicId = fetched.topicId();
        if (meta.isEmpty() && !topicId.equals(Uuid.ZERO_UUID)) {
            return CompletableFuture.completedFuture(error(topic, topicId, index, Errors.UNKNOWN_TOPIC_ID));
        }
        if (meta.isEmpty() || found.isEmpty()) {
            return CompletableFuture.completedFuture(error(topic, topicId, index, Errors.UNKNOWN_TOPIC_OR_PARTITION));
        }
        PartitionIndex partitionIndex = found.get();
        long offset = partition.fetchOffset();
        if (offset < partitionIndex.logStartOffset() || offset > partitionIndex.nextOffset()) {
            return CompletableFuture.completedFuture(new PartitionAnswer(topic, topicId,
                    partitionData(index, partitionIndex, Errors.OFFSET_OUT_OF_RANGE), 0));
        }
        if (budget <= 0) {
            return CompletableFuture.completedFuture(new PartitionAnswer(topic, topicId,
                    partitionData(index, partitionIndex, Errors.NONE), 0));
        }
        return reader.read(meta.get(), index, partitionIndex, offset, budget).thenApply(records -> {
            PartitionData data = partitionData(index, partitionIndex, Errors.NONE);
            data.setRecords(records.remaining() == 0 ? RecordBatches.empty() : RecordBatches.readable(records));
            return new PartitionAnswer(topic, topicId, data, records.remaining());
        });
    }

    private static PartitionData partitionData(int partition, PartitionIndex index, Errors error) {
        return new PartitionData()
                .setPartitionIndex(partition)
                .setErrorCode(error.code())
                .setHighWatermark(index.nextOffset())
                .setLastStableOffset(index.nextOffset())
                .setLogStartOffset(index.logStartOffset())
                .setAbortedTransactions(null)
                .setPreferredReadReplica(-1)
                .setRecords(RecordBatches.empty());
    }

    private static PartitionAnswer error(String topic, Uuid topicId, int partition, Errors error) {
        return new PartitionAnswer(topic, topicId, new PartitionData()
                .setPartitionIndex(partition)
                .setErrorCode(error.code())
                .setHighWatermark(-1)
                .setLastStableOffset(-1)
                .setLogStartOffset(-1)
                .setAbortedTransactions(null)
                .setPreferredReadReplica(-1)
                .setRecords(RecordBatches.empty()), 0);
    }

    private static FetchResponseData toResponse(List<PartitionAnswer> answers) {
        FetchResponseData response = new FetchResponseData().setErrorCode(Errors.NONE.code()).setSessionId(0);
        FetchableTopicResponse current = null;
        for (PartitionAnswer answer : answers) {
            if (current == null || !current.topic().equals(answer.topic()) || !current.topicId().equals(answer.topicId())) {
                current = new FetchableTopicResponse().setTopic(answer.topic()).setTopicId(answer.topicId());
                response.responses().add(current);
            }
            current.partitions().add(answer.data());
        }
        return response;
    }
}
