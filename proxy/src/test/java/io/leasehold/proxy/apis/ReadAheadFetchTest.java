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
import io.leasehold.proxy.request.ActiveRequests;
import io.leasehold.proxy.request.ClientContext;
import io.leasehold.proxy.request.ConnectionWork;
import io.leasehold.proxy.request.MemoryBudget;
import io.leasehold.proxy.request.NegotiatedVersions;
import io.leasehold.proxy.request.PartitionWriteOrder;
import io.leasehold.proxy.testing.FixedRoutes;
import io.leasehold.proxy.testing.ScriptedBackends;
import io.leasehold.proxy.testing.ScriptedBroker;
import io.leasehold.proxy.versions.VersionBridge;
import io.leasehold.routing.snapshot.BrokerAddress;
import io.leasehold.routing.snapshot.Ownership;
import io.leasehold.routing.snapshot.RoutingSnapshot;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * After a merged Fetch answer each owner that returned data is read ahead at the offsets the
 * client asks next; the client's next Fetch at those offsets is answered from the read ahead
 * without asking the owner again, a Fetch at other offsets is asked of the owners, and a held
 * read ahead counts in the memory budget until the connection closes.
 */
class ReadAheadFetchTest {
    private static final short VERSION = 13;
    private static final int RECORDS_PER_ANSWER = 3;
    private static final byte[] VALUE = new byte[100];

    private ScriptedBackends backends;
    private BackendSession session;
    private EmbeddedChannel channel;
    private ClientContext client;
    private final MemoryBudget budget = new MemoryBudget(1L << 30);
    private final List<FetchRequestData> seen = Collections.synchronizedList(new ArrayList<>());
    private RoutingSnapshot snapshot;
    private OwnerLookup owners;

    @BeforeEach
    void start() throws Exception {
        backends = new ScriptedBackends(Duration.ofSeconds(10));
        session = backends.session();
        channel = new EmbeddedChannel();
        client = new ClientContext(session, new PartitionWriteOrder(),
                new ConnectionWork(new ActiveRequests(), () -> { }), new NegotiatedVersions(), ByteBufAllocator.DEFAULT,
                "test", channel);
        BrokerAddress first = new BrokerAddress(1, "127.0.0.1", broker().port(), null);
        BrokerAddress second = new BrokerAddress(2, "127.0.0.1", broker().port(), null);
        snapshot = RoutingSnapshot.builder().broker(first).broker(second)
                .partition("events", 0, new Ownership(1, 3))
                .partition("events", 1, new Ownership(2, 4))
                .partition("events", 2, new Ownership(1, 5)).build();
        owners = new OwnerLookup(new FixedRoutes(snapshot), List.of());
    }

    /** Reads ahead are dropped {@code idle} after they arrive unless taken. */
    private PartitionedRequestRunner routing(Duration idle) {
        return new PartitionedRequestRunner(owners, ids -> CompletableFuture.completedFuture(Map.of()),
                new RetryFactory(Duration.ofMillis(1), Duration.ofMillis(5)), new ProxyMetrics(new SimpleMeterRegistry()),
                Duration.ofSeconds(30), VersionBridge::none, new PartitionedRequestRunner.ReadAhead(budget, idle));
    }

    @AfterEach
    void stop() {
        channel.close();
        backends.close();
    }

    /** A broker answering every partition with three records from the offset asked, high watermark 100. */
    private ScriptedBroker broker() throws InterruptedException {
        return backends.scripted(body -> {
            FetchRequestData request = (FetchRequestData) body;
            seen.add(request);
            return answer(request);
        });
    }

    private static ApiMessage answer(FetchRequestData request) {
        List<FetchResponseData.FetchableTopicResponse> topics = new ArrayList<>();
        for (FetchRequestData.FetchTopic topic : request.topics()) {
            List<PartitionData> partitions = new ArrayList<>();
            for (FetchPartition p : topic.partitions()) {
                SimpleRecord[] records = new SimpleRecord[RECORDS_PER_ANSWER];
                java.util.Arrays.fill(records, new SimpleRecord(VALUE));
                partitions.add(new PartitionData().setPartitionIndex(p.partition()).setHighWatermark(100)
                        .setLastStableOffset(100).setLogStartOffset(0)
                        .setRecords(MemoryRecords.withRecords(p.fetchOffset(), Compression.NONE, records)));
            }
            topics.add(new FetchResponseData.FetchableTopicResponse().setTopic(topic.topic()).setPartitions(partitions));
        }
        return new FetchResponseData().setResponses(topics);
    }

    private static void within(Duration limit, BooleanSupplier condition) throws InterruptedException {
        long end = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition still false after %s", limit).isLessThan(end);
            Thread.sleep(10);
        }
    }

    private FetchResponseData fetch(long offset0, long offset1) throws Exception {
        return fetch(routing(Duration.ofSeconds(60)), offset0, offset1);
    }

    private FetchResponseData fetch(PartitionedRequestRunner routing, long offset0, long offset1) throws Exception {
        return fetch(routing, IsolationLevel.READ_UNCOMMITTED, Map.of(0, offset0, 1, offset1));
    }

    /** A Fetch of the partitions {@code offsets} names, each at its offset there. */
    private FetchResponseData fetch(PartitionedRequestRunner routing, IsolationLevel isolation, Map<Integer,
            Long> offsets)
            throws Exception {
        // min_bytes above all the data and a long max_wait: the answer waits for every owner, also
        // while their connections are still being opened on a loaded machine (none is left behind).
        List<FetchPartition> partitions = new ArrayList<>();
        new TreeMap<>(offsets).forEach((partition, offset) -> partitions.add(
                new FetchPartition().setPartition(partition).setFetchOffset(offset).setPartitionMaxBytes(1 << 20)));
        FetchRequestData fetch = new FetchRequestData().setMaxWaitMs(10_000).setMinBytes(10 << 20)
                .setMaxBytes(50 << 20).setIsolationLevel(isolation.id())
                .setSessionEpoch(-1).setTopics(List.of(new FetchRequestData.FetchTopic().setTopic("events")
                        .setPartitions(partitions)));
        ByteBuf buf = KafkaMessages.encodeRequest(ByteBufAllocator.DEFAULT, ApiKeys.FETCH, VERSION, "consumer", fetch);
        KafkaMessages.withRequestCorrelationId(buf, 5);
        RequestFrame frame = RequestFrame.parse(buf);
        ByteBuf response = (ByteBuf) routing.execute(new FetchApi(), frame, frame.decodeBody(), client,
                EntryAccess.everything())
                .get(10, TimeUnit.SECONDS);
        try {
            return KafkaMessages.decodeResponse(response, ApiKeys.FETCH, VERSION);
        } finally {
            response.release();
        }
    }

    /** The answer's records start at {@code offset0} in partition 0 and {@code offset1} in partition 1. */
    private static void assertStartsAt(FetchResponseData response, long offset0, long offset1) {
        assertThat(firstOffset(response, 0)).as("first offset of partition 0").isEqualTo(offset0);
        assertThat(firstOffset(response, 1)).as("first offset of partition 1").isEqualTo(offset1);
    }

    private static long firstOffset(FetchResponseData response, int partition) {
        PartitionData data = response.responses().get(0).partitions().stream()
                .filter(p -> p.partitionIndex() == partition).findFirst().orElseThrow();
        RecordBatch batch = ((MemoryRecords) data.records()).batches().iterator().next();
        return batch.baseOffset();
    }

    /** Requests the brokers saw for partition {@code partition} at {@code offset}. */
    private List<FetchRequestData> asked(int partition, long offset) {
        synchronized (seen) {
            return seen.stream().filter(r -> r.topics().get(0).partitions().stream()
                    .anyMatch(p -> p.partition() == partition && p.fetchOffset() == offset)).toList();
        }
    }

    @Test
    void theNextFetchAtTheOffsetsAfterAMergedAnswerIsAnsweredFromTheReadAheadWithoutAskingTheOwnersAgain()
            throws Exception {
        assertStartsAt(fetch(0, 10), 0, 10);
        // Each owner is read ahead at once, at the offset after the last batch it returned, without a long poll.
        within(Duration.ofSeconds(5), () -> asked(0, 3).size() == 1 && asked(1, 13).size() == 1);
        assertThat(asked(0, 3).get(0).maxWaitMs()).isZero();

        FetchResponseData next = fetch(3, 13);

        assertStartsAt(next, 3, 13);
        assertThat(asked(0, 3)).hasSize(1);
        assertThat(asked(1, 13)).hasSize(1);
    }

    @Test
    void aFetchAtOtherOffsetsThanTheReadAheadIsAskedOfTheOwnersAndAnsweredFromWhereTheClientAsked() throws Exception {
        fetch(0, 10);
        within(Duration.ofSeconds(5), () -> asked(0, 3).size() == 1 && asked(1, 13).size() == 1);

        // The client seeks: partition 0 back to the start, partition 1 further on.
        FetchResponseData afterSeek = fetch(0, 50);

        assertStartsAt(afterSeek, 0, 50);
        assertThat(asked(0, 0)).hasSize(2);
        assertThat(asked(1, 50)).hasSize(1);
    }

    @Test
    void aHeldReadAheadCountsInTheMemoryBudgetUntilTheConnectionCloses() throws Exception {
        fetch(0, 10);
        within(Duration.ofSeconds(5), () -> budget.used() > 2L * RECORDS_PER_ANSWER * VALUE.length);

        channel.close();

        within(Duration.ofSeconds(5), () -> budget.used() == 0);
    }

    @Test
    void aReadAheadTheClientDoesNotAskForIsDroppedAfterTheIdleTime() throws Exception {
        fetch(routing(Duration.ofMillis(300)), 0, 10);
        within(Duration.ofSeconds(5), () -> budget.used() > 0);

        within(Duration.ofSeconds(5), () -> budget.used() == 0);
        assertThat(channel.isOpen()).isTrue();
    }

    @Test
    void aPartitionLeftOutOfTheNextFetchKeepsItsReadAheadForTheFetchThatAsksForIt() throws Exception {
        PartitionedRequestRunner routing = routing(Duration.ofSeconds(60));
        fetch(routing, IsolationLevel.READ_UNCOMMITTED, Map.of(0, 0L, 1, 10L, 2, 20L));
        // Partitions 0 and 2 share an owner, which is read ahead for both in one request.
        within(Duration.ofSeconds(5), () -> asked(0, 3).size() == 1 && asked(2, 23).size() == 1);

        // A consumer asks again only for the partitions it has used up: one at a time here.
        FetchResponseData first = fetch(routing, IsolationLevel.READ_UNCOMMITTED, Map.of(0, 3L));
        FetchResponseData second = fetch(routing, IsolationLevel.READ_UNCOMMITTED, Map.of(2, 23L));

        assertThat(firstOffset(first, 0)).isEqualTo(3);
        assertThat(firstOffset(second, 2)).isEqualTo(23);
        assertThat(asked(0, 3)).hasSize(1);
        assertThat(asked(2, 23)).hasSize(1);
    }

    @Test
    void aFetchOfOneOwnersPartitionIsReadAheadToo() throws Exception {
        PartitionedRequestRunner routing = routing(Duration.ofSeconds(60));

        fetch(routing, IsolationLevel.READ_UNCOMMITTED, Map.of(1, 10L));

        within(Duration.ofSeconds(5), () -> asked(1, 13).size() == 1);
        assertThat(firstOffset(fetch(routing, IsolationLevel.READ_UNCOMMITTED, Map.of(1, 13L)), 1)).isEqualTo(13);
        assertThat(asked(1, 13)).hasSize(1);
    }

    @Test
    void aReadCommittedFetchIsNotAnsweredFromAReadAheadAskedReadUncommitted() throws Exception {
        PartitionedRequestRunner routing = routing(Duration.ofSeconds(60));
        fetch(routing, 0, 10);
        within(Duration.ofSeconds(5), () -> asked(0, 3).size() == 1 && asked(1, 13).size() == 1);

        FetchResponseData committed = fetch(routing, IsolationLevel.READ_COMMITTED, Map.of(0, 3L, 1, 13L));

        assertStartsAt(committed, 3, 13);
        assertThat(asked(0, 3)).hasSize(2);
        assertThat(asked(0, 3).get(1).isolationLevel()).isEqualTo(IsolationLevel.READ_COMMITTED.id());
    }

    @Test
    void noReadAheadIsStartedWhileMemoryIsShort() throws Exception {
        PartitionedRequestRunner routing = routing(Duration.ofSeconds(60));
        budget.charge(budget.resumeBelow());

        fetch(routing, 0, 10);
        FetchResponseData next = fetch(routing, 3, 13);

        assertStartsAt(next, 3, 13);
        // Only the client's own Fetch asked for offset 3, with what is left of its long poll: no
        // read ahead (which asks with max_wait 0) did.
        List<FetchRequestData> atThree = asked(0, 3);
        assertThat(atThree).hasSize(1);
        assertThat(atThree.get(0).maxWaitMs()).as("max_wait of the one request at offset 3").isPositive();
    }
}
