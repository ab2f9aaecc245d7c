package io.leasehold.proxy.apis;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.proxy.admin.ProxyMetrics;
import io.leasehold.proxy.exchange.EntryAccess;
import io.leasehold.proxy.exchange.PartitionedApi;
import io.leasehold.proxy.exchange.PartitionedRequestRunner;
import io.leasehold.proxy.exchange.RetryFactory;
import io.leasehold.proxy.owners.OwnerLookup;
import io.leasehold.proxy.protocol.KafkaMessages;
import io.leasehold.proxy.protocol.RequestFrame;
import io.leasehold.proxy.request.ClientContext;
import io.leasehold.proxy.testing.FixedRoutes;
import io.leasehold.proxy.testing.ScriptedBackends;
import io.leasehold.proxy.testing.TestClients;
import io.leasehold.proxy.versions.VersionBridge;
import io.leasehold.routing.snapshot.BrokerAddress;
import io.leasehold.routing.snapshot.Ownership;
import io.leasehold.routing.snapshot.RoutingSnapshot;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A throttled broker may answer a Fetch with no partitions at all (KIP-219), which in a merged
 * answer means "nothing for now"; the same empty answer to a write (Produce, DeleteGroups) does not
 * say the write happened, so its entries are not reported as done.
 */
class ThrottledEmptyAnswerTest {
    private static final int THROTTLE_MS = 250;

    private ScriptedBackends backends;
    private ClientContext client;

    @BeforeEach
    void start() {
        backends = new ScriptedBackends();
        client = TestClients.on(backends.session());
    }

    @AfterEach
    void stop() {
        backends.close();
    }

    private <Q extends ApiMessage, R extends ApiMessage> R send(PartitionedApi<Q, R, ?, ?, ?> api, short version,
                                                                Q request, RoutingSnapshot snapshot) throws Exception {
        PartitionedRequestRunner routing = new PartitionedRequestRunner(new OwnerLookup(new FixedRoutes(snapshot),
                List.of()),
                ids -> CompletableFuture.completedFuture(Map.of()),
                new RetryFactory(Duration.ofMillis(1), Duration.ofMillis(5)), new ProxyMetrics(new SimpleMeterRegistry()),
                Duration.ofSeconds(5), VersionBridge::none, null);
        ByteBuf buf = KafkaMessages.encodeRequest(ByteBufAllocator.DEFAULT, api.apiKey(), version, "client", request);
        KafkaMessages.withRequestCorrelationId(buf, 3);
        RequestFrame frame = RequestFrame.parse(buf);
        ByteBuf response = (ByteBuf) routing.execute(api, frame, frame.decodeBody(), client,
                EntryAccess.everything()).get(10, TimeUnit.SECONDS);
        try {
            return KafkaMessages.decodeResponse(response, api.apiKey(), version);
        } finally {
            response.release();
        }
    }

    private BrokerAddress broker(int id, Function<ApiMessage, ApiMessage> script) throws InterruptedException {
        return backends.broker(id, script);
    }

    @Test
    void produceAnsweredEmptyByAThrottledOwnerIsNotReportedWritten() throws Exception {
        BrokerAddress writes = broker(1, body -> {
            ProduceResponseData.TopicProduceResponseCollection topics = new ProduceResponseData.TopicProduceResponseCollection();
            topics.add(new ProduceResponseData.TopicProduceResponse().setName("orders").setPartitionResponses(List.of(
                    new ProduceResponseData.PartitionProduceResponse().setIndex(0).setBaseOffset(40))));
            return new ProduceResponseData().setResponses(topics);
        });
        BrokerAddress throttled = broker(2, body -> new ProduceResponseData().setThrottleTimeMs(THROTTLE_MS));
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(new ProduceRequestData.TopicProduceData().setName("orders").setPartitionData(List.of(
                new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(records()),
                new ProduceRequestData.PartitionProduceData().setIndex(1).setRecords(records()))));

        ProduceResponseData response = send(new ProduceApi(null), (short) 9,
                new ProduceRequestData().setAcks((short) -1).setTimeoutMs(5_000).setTopicData(topics),
                RoutingSnapshot.builder().broker(writes).broker(throttled)
                        .partition("orders", 0, new Ownership(1, 3))
                        .partition("orders", 1, new Ownership(2, 4)).build());

        List<ProduceResponseData.PartitionProduceResponse> partitions =
                response.responses().iterator().next().partitionResponses();
        assertThat(partitions.get(0).errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(partitions.get(0).baseOffset()).isEqualTo(40);
        assertThat(partitions.get(1).errorCode()).as("records the throttled owner never acknowledged")
                .isNotEqualTo(Errors.NONE.code());
        assertThat(response.throttleTimeMs()).isEqualTo(THROTTLE_MS);
    }

    @Test
    void deleteGroupsAnsweredEmptyByAThrottledCoordinatorIsNotReportedDeleted() throws Exception {
        BrokerAddress deletes = broker(1, body -> {
            DeleteGroupsResponseData.DeletableGroupResultCollection results =
                    new DeleteGroupsResponseData.DeletableGroupResultCollection();
            results.add(new DeleteGroupsResponseData.DeletableGroupResult().setGroupId("billing"));
            return new DeleteGroupsResponseData().setResults(results);
        });
        BrokerAddress throttled = broker(2, body -> new DeleteGroupsResponseData().setThrottleTimeMs(THROTTLE_MS));

        DeleteGroupsResponseData response = send(new DeleteGroupsApi(), (short) 2,
                new DeleteGroupsRequestData().setGroupsNames(List.of("billing", "shipping")),
                RoutingSnapshot.builder().broker(deletes).broker(throttled)
                        .group("billing", new Ownership(1, 3)).group("shipping", new Ownership(2, 4)).build());

        assertThat(response.results().find("billing").errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(response.results().find("shipping").errorCode()).as("a group the throttled owner never deleted")
                .isNotEqualTo(Errors.NONE.code());
    }

    @Test
    void fetchAnsweredEmptyByAThrottledOwnerIsNothingForNow() throws Exception {
        BrokerAddress reads = broker(1, body -> new FetchResponseData().setResponses(List.of(
                new FetchResponseData.FetchableTopicResponse().setTopic("events").setPartitions(List.of(
                        new FetchResponseData.PartitionData().setPartitionIndex(0).setHighWatermark(1)
                                .setRecords(records()))))));
        BrokerAddress throttled = broker(2, body -> new FetchResponseData().setThrottleTimeMs(THROTTLE_MS));
        FetchRequestData request = new FetchRequestData().setMaxWaitMs(0).setMinBytes(1).setMaxBytes(1 << 20)
                .setSessionEpoch(-1).setTopics(List.of(new FetchRequestData.FetchTopic().setTopic("events")
                        .setPartitions(List.of(
                                new FetchRequestData.FetchPartition().setPartition(0).setPartitionMaxBytes(1 << 20),
                                new FetchRequestData.FetchPartition().setPartition(1).setPartitionMaxBytes(1 << 20)))));

        FetchResponseData response = send(new FetchApi(), (short) 12, request,
                RoutingSnapshot.builder().broker(reads).broker(throttled)
                        .partition("events", 0, new Ownership(1, 3))
                        .partition("events", 1, new Ownership(2, 4)).build());

        List<FetchResponseData.PartitionData> partitions = response.responses().get(0).partitions();
        assertThat(partitions.get(0).records().sizeInBytes()).isPositive();
        assertThat(partitions.get(1).errorCode()).as("nothing for now: the consumer fetches it again")
                .isEqualTo(Errors.NONE.code());
        assertThat(partitions.get(1).records().sizeInBytes()).isZero();
        assertThat(response.throttleTimeMs()).isEqualTo(THROTTLE_MS);
    }

    private static MemoryRecords records() {
        return MemoryRecords.withRecords(Compression.NONE, new SimpleRecord("v".getBytes()));
    }
}
