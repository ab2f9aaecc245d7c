package io.leasehold.proxy.apis;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.proxy.admin.ProxyMetrics;
import io.leasehold.proxy.backend.ResponseStream;
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
import io.leasehold.proxy.testing.ScriptedBroker;
import io.leasehold.proxy.testing.TestClients;
import io.leasehold.proxy.versions.VersionBridge;
import io.leasehold.routing.snapshot.BrokerAddress;
import io.leasehold.routing.snapshot.Ownership;
import io.leasehold.routing.snapshot.RoutingSnapshot;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ReferenceCounted;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Whatever replica id a client puts in a Fetch, ListOffsets or OffsetForLeaderEpoch, brokers are
 * asked as by a consumer (replica id -1), on the single-owner path that may forward the client's
 * own bytes as on the split one; a Fetch naming a broker as its replica is refused as Kafka refuses
 * it to a principal without CLUSTER_ACTION, and never sent.
 */
class ClientReplicaFieldsTest {
    private static final int BROKER_ID = 1;

    private ScriptedBackends backends;
    private ClientContext client;
    private final List<ApiMessage> seen = Collections.synchronizedList(new ArrayList<>());
    private ScriptedBroker first;
    private RoutingSnapshot snapshot;

    @BeforeEach
    void start() throws Exception {
        backends = new ScriptedBackends();
        client = TestClients.on(backends.session());
        first = backends.scripted(this::answer);
        ScriptedBroker second = backends.scripted(this::answer);
        BrokerAddress one = new BrokerAddress(BROKER_ID, "127.0.0.1", first.port(), null);
        BrokerAddress two = new BrokerAddress(2, "127.0.0.1", second.port(), null);
        // events-0 on broker 1, events-1 on broker 2.
        snapshot = RoutingSnapshot.builder().broker(one).broker(two)
                .partition("events", 0, new Ownership(1, 3))
                .partition("events", 1, new Ownership(2, 4)).build();
    }

    @AfterEach
    void stop() {
        backends.close();
    }

    /** Records each request and answers every partition it names without error. */
    private ApiMessage answer(ApiMessage body) {
        seen.add(body);
        if (body instanceof FetchRequestData fetch) {
            List<FetchResponseData.FetchableTopicResponse> topics = new ArrayList<>();
            fetch.topics().forEach(t -> topics.add(new FetchResponseData.FetchableTopicResponse().setTopic(t.topic())
                    .setPartitions(t.partitions().stream().map(p -> new FetchResponseData.PartitionData()
                            .setPartitionIndex(p.partition()).setHighWatermark(5).setRecords(MemoryRecords.EMPTY))
                            .toList())));
            return new FetchResponseData().setResponses(topics);
        }
        if (body instanceof ListOffsetsRequestData listOffsets) {
            List<ListOffsetsResponseData.ListOffsetsTopicResponse> topics = new ArrayList<>();
            listOffsets.topics().forEach(t -> topics.add(new ListOffsetsResponseData.ListOffsetsTopicResponse()
                    .setName(t.name()).setPartitions(t.partitions().stream().map(p ->
                            new ListOffsetsResponseData.ListOffsetsPartitionResponse()
                                    .setPartitionIndex(p.partitionIndex()).setOffset(5)).toList())));
            return new ListOffsetsResponseData().setTopics(topics);
        }
        OffsetForLeaderEpochRequestData epochs = (OffsetForLeaderEpochRequestData) body;
        OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResultCollection topics =
                new OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResultCollection();
        epochs.topics().forEach(t -> topics.add(new OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult()
                .setTopic(t.topic()).setPartitions(t.partitions().stream().map(p ->
                        new OffsetForLeaderEpochResponseData.EpochEndOffset().setPartition(p.partition())
                                .setLeaderEpoch(3).setEndOffset(5)).toList())));
        return new OffsetForLeaderEpochResponseData().setTopics(topics);
    }

    /** Runs {@code request} through the proxy's routing; null for a Fetch answer streamed from one owner. */
    private <Q extends ApiMessage, R extends ApiMessage> R send(PartitionedApi<Q, R, ?, ?, ?> api, short version,
                                                                Q request) throws Exception {
        PartitionedRequestRunner routing = new PartitionedRequestRunner(new OwnerLookup(new FixedRoutes(snapshot),
                List.of()),
                ids -> CompletableFuture.completedFuture(Map.of()),
                new RetryFactory(Duration.ofMillis(1), Duration.ofMillis(5)), new ProxyMetrics(new SimpleMeterRegistry()),
                Duration.ofSeconds(5), VersionBridge::none, null);
        ByteBuf buf = KafkaMessages.encodeRequest(ByteBufAllocator.DEFAULT, api.apiKey(), version, "consumer", request);
        KafkaMessages.withRequestCorrelationId(buf, 9);
        RequestFrame frame = RequestFrame.parse(buf);
        ReferenceCounted answer = routing.execute(api, frame, frame.decodeBody(), client,
                EntryAccess.everything()).get(10, TimeUnit.SECONDS);
        if (answer instanceof ResponseStream stream) {
            // A single owner's Fetch answer streamed to the client: what matters here is what the broker was asked.
            backends.session().eventLoop().submit(stream::close).get(10, TimeUnit.SECONDS);
            return null;
        }
        ByteBuf response = (ByteBuf) answer;
        try {
            return KafkaMessages.decodeResponse(response, api.apiKey(), version);
        } finally {
            response.release();
        }
    }

    private static FetchRequestData fetch(int... partitions) {
        List<FetchRequestData.FetchPartition> parts = new ArrayList<>();
        for (int p : partitions) {
            parts.add(new FetchRequestData.FetchPartition().setPartition(p).setPartitionMaxBytes(1 << 20));
        }
        return new FetchRequestData().setMaxWaitMs(0).setMinBytes(0).setMaxBytes(1 << 20).setSessionEpoch(-1)
                .setTopics(List.of(new FetchRequestData.FetchTopic().setTopic("events").setPartitions(parts)));
    }

    @ParameterizedTest(name = "Fetch v{0}")
    @ValueSource(shorts = {12, 14})
    void fetchNamingABrokerAsItsReplicaIsRefusedForEveryPartitionAndNeverSent(short version) throws Exception {
        FetchResponseData response = send(new FetchApi(), version, fetch(0).setReplicaId(BROKER_ID));

        assertThat(response.responses().get(0).partitions()).singleElement().satisfies(p ->
                assertThat(p.errorCode()).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code()));
        assertThat(seen).as("sent to a broker").isEmpty();
    }

    @ParameterizedTest(name = "Fetch v{0}")
    @ValueSource(shorts = {15, 17})
    void fetchWhoseReplicaStateNamesABrokerIsRefusedForEveryPartitionAndNeverSent(short version) throws Exception {
        FetchResponseData response = send(new FetchApi(), version, fetch(0).setReplicaState(
                new FetchRequestData.ReplicaState().setReplicaId(BROKER_ID).setReplicaEpoch(7)));

        assertThat(response.responses().get(0).partitions()).singleElement().satisfies(p ->
                assertThat(p.errorCode()).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code()));
        assertThat(seen).as("sent to a broker").isEmpty();
    }

    @ParameterizedTest(name = "Fetch v{0}, partitions {1}")
    @CsvSource({"12, 0", "12, 0 1", "15, 0", "15, 0 1"})
    void fetchWithAnotherReplicaIdReachesBrokersAsAConsumers(short version, String partitions) throws Exception {
        FetchRequestData request = fetch(indexes(partitions));
        if (version < 15) {
            request.setReplicaId(-2);
        } else {
            request.setReplicaState(new FetchRequestData.ReplicaState().setReplicaId(-2).setReplicaEpoch(7));
        }

        send(new FetchApi(), version, request);

        assertThat(seen).hasSize(partitions.split(" ").length).isNotEmpty().allSatisfy(body -> {
            FetchRequestData sent = (FetchRequestData) body;
            assertThat(sent.replicaId()).isEqualTo(-1);
            assertThat(sent.replicaState().replicaId()).isEqualTo(-1);
            assertThat(sent.replicaState().replicaEpoch()).isEqualTo(-1);
        });
    }

    @ParameterizedTest(name = "replica id {0}, partitions {1}")
    @CsvSource({"1, 0", "1, 0 1", "-2, 0", "-2, 0 1"})
    void listOffsetsReachesBrokersAsAConsumersWhateverItsReplicaId(int replicaId, String partitions) throws Exception {
        List<ListOffsetsRequestData.ListOffsetsPartition> parts = new ArrayList<>();
        for (int p : indexes(partitions)) {
            parts.add(new ListOffsetsRequestData.ListOffsetsPartition().setPartitionIndex(p).setTimestamp(-1));
        }
        ListOffsetsRequestData request = new ListOffsetsRequestData().setReplicaId(replicaId).setIsolationLevel((byte) 1)
                .setTopics(List.of(new ListOffsetsRequestData.ListOffsetsTopic().setName("events").setPartitions(parts)));

        ListOffsetsResponseData response = send(new ListOffsetsApi(), (short) 7, request);

        assertThat(response.topics()).flatExtracting(ListOffsetsResponseData.ListOffsetsTopicResponse::partitions)
                .extracting(ListOffsetsResponseData.ListOffsetsPartitionResponse::offset).containsOnly(5L);
        assertThat(seen).isNotEmpty().allSatisfy(body -> {
            ListOffsetsRequestData sent = (ListOffsetsRequestData) body;
            assertThat(sent.replicaId()).isEqualTo(-1);
            assertThat(sent.isolationLevel()).as("the client's isolation level").isEqualTo((byte) 1);
        });
    }

    @ParameterizedTest(name = "v{0}, replica id {1}, partitions {2}")
    @CsvSource({"3, 1, 0", "3, 1, 0 1", "4, 1, 0", "4, -2, 0", "4, 1, 0 1"})
    void offsetForLeaderEpochReachesBrokersAsAConsumersWhateverItsReplicaId(short version, int replicaId,
                                                                           String partitions) throws Exception {
        OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection topics =
                new OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection();
        List<OffsetForLeaderEpochRequestData.OffsetForLeaderPartition> parts = new ArrayList<>();
        for (int p : indexes(partitions)) {
            parts.add(new OffsetForLeaderEpochRequestData.OffsetForLeaderPartition().setPartition(p)
                    .setCurrentLeaderEpoch(3).setLeaderEpoch(3));
        }
        topics.add(new OffsetForLeaderEpochRequestData.OffsetForLeaderTopic().setTopic("events").setPartitions(parts));

        OffsetForLeaderEpochResponseData response = send(new OffsetForLeaderEpochApi(), version,
                new OffsetForLeaderEpochRequestData().setReplicaId(replicaId).setTopics(topics));

        assertThat(response.topics()).flatExtracting(OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult::partitions)
                .extracting(OffsetForLeaderEpochResponseData.EpochEndOffset::endOffset).containsOnly(5L);
        assertThat(seen).isNotEmpty().allSatisfy(body ->
                assertThat(((OffsetForLeaderEpochRequestData) body).replicaId()).isEqualTo(-1));
    }

    private static int[] indexes(String partitions) {
        return java.util.Arrays.stream(partitions.split(" ")).mapToInt(Integer::parseInt).toArray();
    }
}
