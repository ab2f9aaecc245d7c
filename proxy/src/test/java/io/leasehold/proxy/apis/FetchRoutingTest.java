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
import io.leasehold.proxy.testing.ScriptedBroker;
import io.leasehold.proxy.testing.TestClients;
import io.leasehold.proxy.versions.VersionBridge;
import io.leasehold.routing.snapshot.BrokerAddress;
import io.leasehold.routing.snapshot.Ownership;
import io.leasehold.routing.snapshot.RoutingSnapshot;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Fetch through {@link PartitionedRequestRunner} against two in-test brokers, each serving the partition
 * it owns: sessions are not forwarded, topic ids are resolved, and the merged response carries
 * both brokers' records intact.
 */
class FetchRoutingTest {
    private static final short VERSION = 13;
    private static final Uuid TOPIC_ID = Uuid.randomUuid();

    private EventLoopGroup group;
    private final List<FetchRequestData> seenByA = Collections.synchronizedList(new ArrayList<>());
    private final List<FetchRequestData> seenByB = Collections.synchronizedList(new ArrayList<>());
    private ScriptedBroker brokerA;
    private ScriptedBroker brokerB;
    private BackendSession session;

    private static ApiMessage serve(ApiMessage body, List<FetchRequestData> seen, String value) {
        FetchRequestData request = (FetchRequestData) body;
        seen.add(request);
        List<FetchResponseData.FetchableTopicResponse> topics = new ArrayList<>();
        for (FetchRequestData.FetchTopic topic : request.topics()) {
            List<FetchResponseData.PartitionData> partitions = new ArrayList<>();
            for (FetchRequestData.FetchPartition p : topic.partitions()) {
                partitions.add(new FetchResponseData.PartitionData().setPartitionIndex(p.partition())
                        .setHighWatermark(1).setRecords(MemoryRecords.withRecords(Compression.NONE,
                                new SimpleRecord((value + "-" + p.partition()).getBytes(StandardCharsets.UTF_8)))));
            }
            topics.add(new FetchResponseData.FetchableTopicResponse().setTopicId(topic.topicId())
                    .setPartitions(partitions));
        }
        return new FetchResponseData().setResponses(topics).setSessionId(0);
    }

    @BeforeEach
    void start() throws InterruptedException {
        group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        brokerA = new ScriptedBroker(group, body -> serve(body, seenByA, "from-a"));
        brokerB = new ScriptedBroker(group, body -> serve(body, seenByB, "from-b"));
        session = TestClients.openSession(group);
    }

    @AfterEach
    void stop() {
        session.close();
        brokerA.close();
        brokerB.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void splitsSessionFetchByOwnerAndMergesRecordsIntact() throws Exception {
        BrokerAddress a = new BrokerAddress(1, "127.0.0.1", brokerA.port(), null);
        BrokerAddress b = new BrokerAddress(2, "127.0.0.1", brokerB.port(), null);
        RoutingSnapshot snapshot = RoutingSnapshot.builder().broker(a).broker(b)
                .partition("events", 0, new Ownership(1, 3)).partition("events", 1, new Ownership(2, 4)).build();
        PartitionedRequestRunner routing = new PartitionedRequestRunner(new OwnerLookup(new FixedRoutes(snapshot),
                List.of()),
                ids -> CompletableFuture.completedFuture(Map.of(TOPIC_ID, "events")),
                new RetryFactory(Duration.ofMillis(1), Duration.ofMillis(5)), new ProxyMetrics(new SimpleMeterRegistry()),
                Duration.ofSeconds(5), VersionBridge::none, null);
        // min_bytes above what both send: the merged answer waits for both owners (they answer at once).
        FetchRequestData fetch = new FetchRequestData().setMaxWaitMs(5000).setMinBytes(1 << 20).setSessionId(0).setSessionEpoch(0)
                .setTopics(List.of(new FetchRequestData.FetchTopic().setTopicId(TOPIC_ID).setPartitions(List.of(
                        new FetchRequestData.FetchPartition().setPartition(0),
                        new FetchRequestData.FetchPartition().setPartition(1)))));
        ByteBuf buf = KafkaMessages.encodeRequest(ByteBufAllocator.DEFAULT, ApiKeys.FETCH, VERSION, "consumer", fetch);
        KafkaMessages.withRequestCorrelationId(buf, 5);
        RequestFrame frame = RequestFrame.parse(buf);

        ByteBuf responseFrame = (ByteBuf) routing.execute(new FetchApi(), frame, frame.decodeBody(),
                TestClients.on(session), EntryAccess.everything())
                .get(10, TimeUnit.SECONDS);
        List<String> values = new ArrayList<>();
        FetchResponseData response;
        try {
            response = KafkaMessages.decodeResponse(responseFrame, ApiKeys.FETCH, VERSION);
            for (FetchResponseData.PartitionData p : response.responses().get(0).partitions()) {
                for (Record record : ((MemoryRecords) p.records()).records()) {
                    values.add(StandardCharsets.UTF_8.decode(record.value()).toString());
                }
            }
        } finally {
            responseFrame.release();
        }

        assertThat(response.sessionId()).isZero();
        assertThat(response.responses()).hasSize(1);
        assertThat(response.responses().get(0).topicId()).isEqualTo(TOPIC_ID);
        assertThat(values).containsExactly("from-a-0", "from-b-1");
        assertThat(seenByA).singleElement().satisfies(r -> {
            assertThat(r.sessionId()).isZero();
            assertThat(r.sessionEpoch()).as("sessionless full fetch").isEqualTo(-1);
            assertThat(r.topics().get(0).partitions()).extracting(FetchRequestData.FetchPartition::partition)
                    .containsExactly(0);
        });
        assertThat(seenByB).singleElement().satisfies(r ->
                assertThat(r.topics().get(0).partitions()).extracting(FetchRequestData.FetchPartition::partition)
                        .containsExactly(1));
    }
}
