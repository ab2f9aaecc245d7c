package io.leasehold.proxy.apis;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.proxy.admin.ProxyMetrics;
import io.leasehold.proxy.backend.BackendSession;
import io.leasehold.proxy.exchange.EntryAccess;
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
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A fetch split over two owners is merged under the client's limits: each owner is asked for a
 * share of {@code max_bytes}, the merged records stay within it (the first partition's always
 * go), the answer goes once {@code min_bytes} of data is in without waiting for an owner still
 * long-polling (or one that never answers, once its deadline passed), and a poll left behind is
 * never queued behind on its connection.
 */
class MergedFetchTest {
    private static final short VERSION = 13;
    /** Longer than every wait a test allows for its answer: an answer proves nobody waited for it. */
    private static final int LONG_POLL_MS = 20_000;
    private static final byte[] VALUE = new byte[1000];

    private ScriptedBackends backends;
    private BackendSession session;
    private ClientContext client;
    private final List<FetchRequestData> seen = Collections.synchronizedList(new ArrayList<>());

    @BeforeEach
    void start() {
        backends = new ScriptedBackends(Duration.ofSeconds(60));
        session = backends.session();
        client = TestClients.on(session);
    }

    @AfterEach
    void stop() {
        backends.close();
    }

    private ScriptedBroker broker(Function<ApiMessage, ApiMessage> script) throws InterruptedException {
        return backends.scripted(body -> {
            seen.add((FetchRequestData) body);
            return script.apply(body);
        });
    }

    /** Answers every requested partition with one 1000-byte record at high watermark 7. */
    private static ApiMessage withData(ApiMessage body) {
        return answer((FetchRequestData) body, p -> new PartitionData().setPartitionIndex(p).setHighWatermark(7)
                .setLastStableOffset(7).setLogStartOffset(0)
                .setRecords(MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(VALUE))));
    }

    /** Answers every requested partition with nothing new, as a broker does when its long poll ends. */
    private static ApiMessage nothingNew(ApiMessage body) {
        return answer((FetchRequestData) body, p -> new PartitionData().setPartitionIndex(p).setHighWatermark(3)
                .setRecords(MemoryRecords.EMPTY));
    }

    private static FetchResponseData answer(FetchRequestData request, Function<Integer, PartitionData> partition) {
        List<FetchResponseData.FetchableTopicResponse> topics = new ArrayList<>();
        for (FetchRequestData.FetchTopic topic : request.topics()) {
            List<PartitionData> partitions = new ArrayList<>();
            topic.partitions().forEach(p -> partitions.add(partition.apply(p.partition())));
            topics.add(new FetchResponseData.FetchableTopicResponse().setTopic(topic.topic()).setPartitions(partitions));
        }
        return new FetchResponseData().setResponses(topics);
    }

    private static BrokerAddress address(int id, ScriptedBroker broker) {
        return new BrokerAddress(id, "127.0.0.1", broker.port(), null);
    }

    /** events-0 on broker 1, events-1 on broker 2. */
    private static RoutingSnapshot eachOwnsOne(BrokerAddress first, BrokerAddress second) {
        return RoutingSnapshot.builder().broker(first).broker(second)
                .partition("events", 0, new Ownership(first.id(), 3))
                .partition("events", 1, new Ownership(second.id(), 4)).build();
    }

    private CompletableFuture<FetchResponseData> fetch(RoutingSnapshot snapshot, int maxWaitMs, int maxBytes)
            throws Exception {
        return fetch(snapshot, maxWaitMs, 1, maxBytes);
    }

    private CompletableFuture<FetchResponseData> fetch(RoutingSnapshot snapshot, int maxWaitMs, int minBytes,
                                                       int maxBytes) throws Exception {
        PartitionedRequestRunner routing = new PartitionedRequestRunner(new OwnerLookup(new FixedRoutes(snapshot),
                List.of()),
                ids -> CompletableFuture.completedFuture(Map.of()),
                new RetryFactory(Duration.ofMillis(1), Duration.ofMillis(5)), new ProxyMetrics(new SimpleMeterRegistry()),
                Duration.ofSeconds(30), VersionBridge::none, null);
        FetchRequestData fetch = new FetchRequestData().setMaxWaitMs(maxWaitMs).setMinBytes(minBytes).setMaxBytes(maxBytes)
                .setSessionEpoch(-1).setTopics(List.of(new FetchRequestData.FetchTopic().setTopic("events")
                        .setPartitions(List.of(new FetchRequestData.FetchPartition().setPartition(0)
                                        .setPartitionMaxBytes(1 << 20),
                                new FetchRequestData.FetchPartition().setPartition(1).setPartitionMaxBytes(1 << 20)))));
        ByteBuf buf = KafkaMessages.encodeRequest(ByteBufAllocator.DEFAULT, ApiKeys.FETCH, VERSION, "consumer", fetch);
        KafkaMessages.withRequestCorrelationId(buf, 5);
        RequestFrame frame = RequestFrame.parse(buf);
        return routing.execute(new FetchApi(), frame, frame.decodeBody(), client,
                EntryAccess.everything()).thenApply(r -> {
            ByteBuf responseFrame = (ByteBuf) r;
            try {
                return KafkaMessages.decodeResponse(responseFrame, ApiKeys.FETCH, VERSION);
            } finally {
                responseFrame.release();
            }
        });
    }

    private static PartitionData partition(FetchResponseData response, int index) {
        return response.responses().get(0).partitions().stream().filter(p -> p.partitionIndex() == index)
                .findFirst().orElseThrow();
    }

    @Test
    void dataFromOneOwnerIsAnsweredWithoutWaitingForAnOwnerStillLongPolling() throws Exception {
        ScriptedBroker withData = broker(MergedFetchTest::withData);
        ScriptedBroker polling = broker(body -> ScriptedBroker.SILENCE);

        FetchResponseData response = fetch(eachOwnsOne(address(1, withData), address(2, polling)), LONG_POLL_MS,
                1 << 20).get(10, TimeUnit.SECONDS);

        assertThat(partition(response, 0).records().sizeInBytes()).isPositive();
        PartitionData left = partition(response, 1);
        assertThat(left.errorCode()).as("no error: the client simply fetches it again").isEqualTo(Errors.NONE.code());
        assertThat(left.records().sizeInBytes()).isZero();
        assertThat(left.highWatermark()).as("unknown, which no client takes for the end of the log").isEqualTo(-1);
        assertThat(left.logStartOffset()).as("unknown, which no client resets to").isEqualTo(-1);
    }

    @Test
    void anOwnerThatNeverAnswersIsLeftEmptyOnceItsLongPollAndAllowancePassed() throws Exception {
        // Asked for the hung owner's partition instead, the idle broker is silent too: the read is not retried.
        ScriptedBroker idle = broker(body -> ((FetchRequestData) body).topics().get(0).partitions().stream()
                .anyMatch(p -> p.partition() == 1) ? ScriptedBroker.SILENCE : nothingNew(body));
        ScriptedBroker hung = broker(body -> ScriptedBroker.SILENCE);

        // The backend request timeout is 60 s: only the per-owner deadline (2 s + 500 ms) can end this.
        FetchResponseData response = fetch(eachOwnsOne(address(1, idle), address(2, hung)), 2000, 1 << 20)
                .get(10, TimeUnit.SECONDS);

        assertThat(response.responses().get(0).partitions()).allSatisfy(p -> {
            assertThat(p.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(p.records().sizeInBytes()).isZero();
        });
        assertThat(partition(response, 0).highWatermark()).as("the idle owner's own answer").isEqualTo(3);
    }

    @Test
    void eachOwnerIsAskedForItsShareAndTheMergedRecordsStayWithinMaxBytes() throws Exception {
        ScriptedBroker a = broker(MergedFetchTest::withData);
        ScriptedBroker b = broker(MergedFetchTest::withData);
        int maxBytes = 1500;

        // min_bytes above what both have: the answer waits for both owners.
        FetchResponseData response = fetch(eachOwnsOne(address(1, a), address(2, b)), LONG_POLL_MS, 1 << 20, maxBytes)
                .get(10, TimeUnit.SECONDS);

        assertThat(seen).extracting(FetchRequestData::maxBytes).containsOnly(maxBytes / 2);
        PartitionData first = partition(response, 0);
        PartitionData cut = partition(response, 1);
        assertThat(first.records().sizeInBytes()).as("the first partition's batch goes even past its share").isPositive();
        assertThat(cut.records().sizeInBytes()).as("past max_bytes").isZero();
        assertThat(cut.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(cut.highWatermark()).as("offsets as the owner sent them").isEqualTo(7);
        int total = response.responses().get(0).partitions().stream().mapToInt(p -> p.records().sizeInBytes()).sum();
        assertThat(total).isLessThanOrEqualTo(maxBytes);
    }

    @Test
    void theFirstPartitionsRecordsGoEvenWhenLargerThanMaxBytes() throws Exception {
        ScriptedBroker a = broker(MergedFetchTest::withData);
        ScriptedBroker b = broker(MergedFetchTest::withData);

        FetchResponseData response = fetch(eachOwnsOne(address(1, a), address(2, b)), LONG_POLL_MS, 1 << 20, 100)
                .get(10, TimeUnit.SECONDS);

        assertThat(partition(response, 0).records().sizeInBytes()).as("KIP-74: progress").isGreaterThan(100);
        assertThat(partition(response, 1).records().sizeInBytes()).isZero();
    }

    @Test
    void aNewFetchDoesNotQueueBehindAPollTheLastAnswerLeftBehind() throws Exception {
        ScriptedBroker withData = broker(MergedFetchTest::withData);
        ScriptedBroker polling = broker(body -> ScriptedBroker.SILENCE);
        RoutingSnapshot snapshot = eachOwnsOne(address(1, withData), address(2, polling));

        fetch(snapshot, LONG_POLL_MS, 1 << 20).get(10, TimeUnit.SECONDS);
        FetchResponseData second = fetch(snapshot, LONG_POLL_MS, 1 << 20).get(10, TimeUnit.SECONDS);

        assertThat(partition(second, 0).records().sizeInBytes()).isPositive();
        assertThat(polling.requests(ApiKeys.FETCH)).as("polls sent to the owner still busy with the first")
                .isEqualTo(1);
        assertThat(withData.requests(ApiKeys.FETCH)).isEqualTo(2);
    }
}
