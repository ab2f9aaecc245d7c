package io.leasehold.proxy.apis;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.proxy.admin.ProxyMetrics;
import io.leasehold.proxy.backend.BackendSession;
import io.leasehold.proxy.backend.ResponseStream;
import io.leasehold.proxy.exchange.EntryAccess;
import io.leasehold.proxy.exchange.PartitionedRequestRunner;
import io.leasehold.proxy.exchange.RetryFactory;
import io.leasehold.proxy.owners.OwnerLookup;
import io.leasehold.proxy.protocol.KafkaMessages;
import io.leasehold.proxy.protocol.RequestFrame;
import io.leasehold.proxy.testing.ScriptedBroker;
import io.leasehold.proxy.testing.SwitchingRoutes;
import io.leasehold.proxy.testing.TestClients;
import io.leasehold.proxy.versions.VersionBridge;
import io.leasehold.routing.snapshot.BrokerAddress;
import io.leasehold.routing.snapshot.Ownership;
import io.leasehold.routing.snapshot.RoutingSnapshot;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A Fetch whose partitions all belong to one owner is streamed to the client unread, yet the
 * owner's "not mine" still drops the route, as on the merged path, and the backend's broker ids
 * never reach the client.
 */
class StreamedFetchTest {
    private static final short VERSION = 13;
    private static final Uuid TOPIC_ID = Uuid.randomUuid();
    private static final int OWNER_ID = 1;

    private EventLoopGroup group;
    private ScriptedBroker owner;
    private BackendSession session;

    /** The owner no longer has partition 0 (and names itself leader); partition 1 is served. */
    private static ApiMessage rejectsPartitionZero(ApiMessage body) {
        FetchRequestData request = (FetchRequestData) body;
        List<FetchResponseData.PartitionData> partitions = new ArrayList<>();
        for (FetchRequestData.FetchPartition p : request.topics().get(0).partitions()) {
            partitions.add(new FetchResponseData.PartitionData().setPartitionIndex(p.partition())
                    .setErrorCode(p.partition() == 0 ? Errors.NOT_LEADER_OR_FOLLOWER.code() : Errors.NONE.code())
                    .setHighWatermark(5).setPreferredReadReplica(OWNER_ID)
                    .setCurrentLeader(new FetchResponseData.LeaderIdAndEpoch().setLeaderId(OWNER_ID).setLeaderEpoch(9))
                    .setRecords(MemoryRecords.EMPTY));
        }
        return new FetchResponseData().setResponses(List.of(new FetchResponseData.FetchableTopicResponse()
                .setTopicId(TOPIC_ID).setPartitions(partitions)));
    }

    @BeforeEach
    void start() throws InterruptedException {
        group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        owner = new ScriptedBroker(group, StreamedFetchTest::rejectsPartitionZero);
        session = TestClients.openSession(group);
    }

    @AfterEach
    void stop() {
        session.close();
        owner.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void aRejectionInAStreamedSingleOwnerFetchDropsTheRouteAndNoBackendBrokerIdReachesTheClient() throws Exception {
        BrokerAddress broker = new BrokerAddress(OWNER_ID, "127.0.0.1", owner.port(), null);
        RoutingSnapshot snapshot = RoutingSnapshot.builder().broker(broker)
                .partition("events", 0, new Ownership(OWNER_ID, 3)).partition("events", 1, new Ownership(OWNER_ID, 4))
                .build();
        SwitchingRoutes routes = new SwitchingRoutes();
        routes.current.set(snapshot);
        routes.afterInvalidation = snapshot;
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        PartitionedRequestRunner routing = new PartitionedRequestRunner(new OwnerLookup(routes, List.of()),
                ids -> CompletableFuture.completedFuture(Map.of(TOPIC_ID, "events")),
                new RetryFactory(Duration.ofMillis(1), Duration.ofMillis(5)), new ProxyMetrics(registry),
                Duration.ofSeconds(5), VersionBridge::none, null);
        // A long poll the owner does not use (it answers at once): a loaded machine's first answer
        // must not miss the attempt deadline, which would retry the read on the merged path.
        FetchRequestData fetch = new FetchRequestData().setMaxWaitMs(5000).setSessionEpoch(-1)
                .setTopics(List.of(new FetchRequestData.FetchTopic().setTopicId(TOPIC_ID).setPartitions(List.of(
                        new FetchRequestData.FetchPartition().setPartition(0),
                        new FetchRequestData.FetchPartition().setPartition(1)))));
        ByteBuf buf = KafkaMessages.encodeRequest(ByteBufAllocator.DEFAULT, ApiKeys.FETCH, VERSION, "consumer", fetch);
        RequestFrame frame = RequestFrame.parse(buf);

        Object answer = routing.execute(new FetchApi(), frame, frame.decodeBody(), TestClients.on(session),
                EntryAccess.everything())
                .get(10, TimeUnit.SECONDS);
        assertThat(answer).as("a single owner's answer is streamed").isInstanceOf(ResponseStream.class);
        FetchResponseData response = readWhole((ResponseStream) answer);

        assertThat(routes.invalidations).containsExactly("events-0@" + new Ownership(OWNER_ID, 3));
        assertThat(response.responses().get(0).partitions()).hasSize(2).allSatisfy(p -> {
            assertThat(p.preferredReadReplica()).isEqualTo(-1);
            assertThat(p.currentLeader().leaderId()).isEqualTo(-1);
            assertThat(p.currentLeader().leaderEpoch()).isEqualTo(-1);
        });
        assertThat(response.responses().get(0).partitions().get(0).errorCode())
                .isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER.code());
    }

    /** Takes the streamed frame's pieces on their event loop until all are in, and decodes them. */
    private FetchResponseData readWhole(ResponseStream stream) throws Exception {
        CompositeByteBuf all = ByteBufAllocator.DEFAULT.compositeBuffer();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            boolean complete = false;
            while (!complete && System.nanoTime() < deadline) {
                complete = session.eventLoop().submit(() -> {
                    ByteBuf chunk;
                    while ((chunk = stream.readChunk(ByteBufAllocator.DEFAULT)) != null) {
                        all.addComponent(true, chunk);
                    }
                    return stream.isEndOfInput();
                }).get(10, TimeUnit.SECONDS);
                if (!complete) {
                    Thread.sleep(5);
                }
            }
            assertThat(complete).as("whole response streamed").isTrue();
            FetchResponseData response = KafkaMessages.decodeResponse(all.slice(4, all.readableBytes() - 4),
                    ApiKeys.FETCH, VERSION);
            return response.duplicate();
        } finally {
            session.eventLoop().submit(stream::close).get(10, TimeUnit.SECONDS);
            all.release();
        }
    }
}
