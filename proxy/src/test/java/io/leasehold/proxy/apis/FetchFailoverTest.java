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
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
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
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Fetch through {@link PartitionedRequestRunner} when a partition's owner fails: the read is answered by
 * another broker, and what the proxy answers itself is something clients handle (a retriable
 * code, empty records, no backend broker ids).
 */
class FetchFailoverTest {
    private static final short VERSION = 13;

    private ScriptedBackends backends;
    private BackendSession session;
    private final List<FetchRequestData> seen = Collections.synchronizedList(new ArrayList<>());

    @BeforeEach
    void start() {
        backends = new ScriptedBackends();
        session = backends.session();
    }

    @AfterEach
    void stop() {
        backends.close();
    }

    private BrokerAddress broker(int id, Function<ApiMessage, ApiMessage> script) throws InterruptedException {
        return backends.broker(id, body -> {
            seen.add((FetchRequestData) body);
            return script.apply(body);
        });
    }

    /** Serves every requested partition with one record "{value}-{partition}". */
    private static Function<ApiMessage, ApiMessage> serving(String value) {
        return body -> answer((FetchRequestData) body, p -> new FetchResponseData.PartitionData().setPartitionIndex(p)
                .setHighWatermark(1).setRecords(MemoryRecords.withRecords(Compression.NONE,
                        new SimpleRecord((value + "-" + p).getBytes(StandardCharsets.UTF_8)))));
    }

    private static FetchResponseData answer(FetchRequestData request,
                                            Function<Integer, FetchResponseData.PartitionData> partition) {
        List<FetchResponseData.FetchableTopicResponse> topics = new ArrayList<>();
        for (FetchRequestData.FetchTopic topic : request.topics()) {
            List<FetchResponseData.PartitionData> partitions = new ArrayList<>();
            topic.partitions().forEach(p -> partitions.add(partition.apply(p.partition())));
            topics.add(new FetchResponseData.FetchableTopicResponse().setTopic(topic.topic()).setPartitions(partitions));
        }
        return new FetchResponseData().setResponses(topics);
    }

    private static final Function<ApiMessage, ApiMessage> HANGS_UP = body -> null;

    private FetchResponseData fetch(RoutingSnapshot snapshot, int maxWaitMs, int... partitions) throws Exception {
        PartitionedRequestRunner routing = new PartitionedRequestRunner(new OwnerLookup(new FixedRoutes(snapshot),
                List.of()),
                ids -> CompletableFuture.completedFuture(Map.of()),
                new RetryFactory(Duration.ofMillis(1), Duration.ofMillis(5)), new ProxyMetrics(new SimpleMeterRegistry()),
                Duration.ofSeconds(5), VersionBridge::none, null);
        List<FetchRequestData.FetchPartition> wanted = new ArrayList<>();
        for (int p : partitions) {
            wanted.add(new FetchRequestData.FetchPartition().setPartition(p));
        }
        FetchRequestData fetch = new FetchRequestData().setMaxWaitMs(maxWaitMs).setSessionEpoch(-1).setRackId("rack-a")
                .setTopics(List.of(new FetchRequestData.FetchTopic().setTopic("events").setPartitions(wanted)));
        ByteBuf buf = KafkaMessages.encodeRequest(ByteBufAllocator.DEFAULT, ApiKeys.FETCH, VERSION, "consumer", fetch);
        KafkaMessages.withRequestCorrelationId(buf, 5);
        RequestFrame frame = RequestFrame.parse(buf);
        ByteBuf responseFrame = (ByteBuf) routing.execute(new FetchApi(), frame, frame.decodeBody(),
                TestClients.on(session), EntryAccess.everything()).get(20, TimeUnit.SECONDS);
        try {
            return KafkaMessages.decodeResponse(responseFrame, ApiKeys.FETCH, VERSION);
        } finally {
            responseFrame.release();
        }
    }

    /** events-0 owned by {@code first}, events-1 by {@code second}. */
    private static RoutingSnapshot eachOwnsOne(BrokerAddress first, BrokerAddress second) {
        return RoutingSnapshot.builder().broker(first).broker(second)
                .partition("events", 0, new Ownership(first.id(), 3))
                .partition("events", 1, new Ownership(second.id(), 4)).build();
    }

    private static List<String> values(FetchResponseData.PartitionData partition) {
        List<String> values = new ArrayList<>();
        for (Record record : ((MemoryRecords) partition.records()).records()) {
            values.add(StandardCharsets.UTF_8.decode(record.value()).toString());
        }
        return values;
    }

    @Test
    void readWhoseOwnerHangsUpIsServedByAnotherBrokerEvenWithZeroMaxWait() throws Exception {
        BrokerAddress owner = broker(1, HANGS_UP);
        BrokerAddress other = broker(2, serving("from-2"));
        RoutingSnapshot snapshot = RoutingSnapshot.builder().broker(owner).broker(other)
                .partition("events", 0, new Ownership(1, 3)).build();

        FetchResponseData response = fetch(snapshot, 0, 0);

        FetchResponseData.PartitionData p0 = response.responses().get(0).partitions().get(0);
        assertThat(p0.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(values(p0)).containsExactly("from-2-0");
    }

    @Test
    void readWhoseOwnerDoesNotAnswerIsServedByAnotherBrokerSoonAfterTheLongPoll() throws Exception {
        // Accepted by the kernel, never read: a paused broker.
        try (ServerSocket paused = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
            BrokerAddress owner = new BrokerAddress(1, "127.0.0.1", paused.getLocalPort(), null);
            BrokerAddress other = broker(2, serving("from-2"));
            RoutingSnapshot snapshot = eachOwnsOne(owner, other);

            // Only the paused owner's partition: a merged read would answer the other's data without it.
            FetchResponseData response = fetch(snapshot, 100, 0);

            assertThat(response.responses().get(0).partitions())
                    .extracting(FetchResponseData.PartitionData::errorCode).containsOnly(Errors.NONE.code());
            assertThat(response.responses().get(0).partitions()).extracting(FetchFailoverTest::values)
                    .containsExactly(List.of("from-2-0"));
        }
    }

    @Test
    void readNoBrokerAnswersReportsNotLeaderWithEmptyRecords() throws Exception {
        BrokerAddress a = broker(1, HANGS_UP);
        BrokerAddress b = broker(2, HANGS_UP);
        RoutingSnapshot snapshot = eachOwnsOne(a, b);

        FetchResponseData response = fetch(snapshot, 0, 0, 1);

        assertThat(response.responses().get(0).partitions()).allSatisfy(p -> {
            assertThat(p.errorCode()).as("a code the Java consumer handles").isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER.code());
            assertThat(p.records()).as("empty, never null: librdkafka drops a response with a null record set")
                    .isNotNull();
            assertThat(p.records().sizeInBytes()).isZero();
        });
    }

    @Test
    void mergedReadNamesNoBackendBrokerAndDoesNotForwardTheClientsRack() throws Exception {
        Function<ApiMessage, ApiMessage> pointing = body -> answer((FetchRequestData) body, p ->
                new FetchResponseData.PartitionData().setPartitionIndex(p).setHighWatermark(1)
                        .setPreferredReadReplica(2).setRecords(MemoryRecords.EMPTY)
                        .setCurrentLeader(new FetchResponseData.LeaderIdAndEpoch().setLeaderId(0).setLeaderEpoch(9)));
        BrokerAddress a = broker(1, pointing);
        BrokerAddress b = broker(2, pointing);
        RoutingSnapshot snapshot = eachOwnsOne(a, b);

        FetchResponseData response = fetch(snapshot, 10, 0, 1);

        assertThat(response.responses().get(0).partitions()).allSatisfy(p -> {
            assertThat(p.preferredReadReplica()).isEqualTo(-1);
            assertThat(p.currentLeader().leaderId()).isEqualTo(-1);
        });
        assertThat(seen).extracting(FetchRequestData::rackId).containsOnly("");
    }

    @Test
    void throttledEmptyAnswerLeavesItsPartitionsWithoutError() throws Exception {
        BrokerAddress throttled = broker(1, body -> new FetchResponseData().setThrottleTimeMs(100));
        BrokerAddress other = broker(2, serving("from-2"));
        RoutingSnapshot snapshot = eachOwnsOne(throttled, other);

        FetchResponseData response = fetch(snapshot, 10, 0, 1);

        assertThat(response.throttleTimeMs()).isEqualTo(100);
        assertThat(response.responses().get(0).partitions()).extracting(FetchResponseData.PartitionData::errorCode)
                .containsOnly(Errors.NONE.code());
    }
}
