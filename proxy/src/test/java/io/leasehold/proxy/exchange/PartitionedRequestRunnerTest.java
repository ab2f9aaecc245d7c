package io.leasehold.proxy.exchange;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.proxy.admin.ProxyMetrics;
import io.leasehold.proxy.apis.ProduceApi;
import io.leasehold.proxy.backend.BackendSession;
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
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.ReferenceCounted;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link PartitionedRequestRunner} with Produce, against two in-test brokers that accept only the
 * partitions they own: the split, the conditional invalidation, the retry of only the rejected
 * partition and the merge, checked on what each broker received.
 */
class PartitionedRequestRunnerTest {
    private static final short VERSION = 9;

    /** Answers Produce like a lease-aware broker: only partitions in {@link #owned} are accepted. */
    private static final class OwningBroker implements Function<ApiMessage, ApiMessage> {
        final Set<Integer> owned = ConcurrentHashMap.newKeySet();
        final List<List<Integer>> received = Collections.synchronizedList(new ArrayList<>());

        @Override
        public ApiMessage apply(ApiMessage body) {
            ProduceRequestData request = (ProduceRequestData) body;
            ProduceResponseData.TopicProduceResponseCollection topics =
                    new ProduceResponseData.TopicProduceResponseCollection();
            List<Integer> partitions = new ArrayList<>();
            for (ProduceRequestData.TopicProduceData topic : request.topicData()) {
                List<ProduceResponseData.PartitionProduceResponse> answers = new ArrayList<>();
                for (ProduceRequestData.PartitionProduceData p : topic.partitionData()) {
                    partitions.add(p.index());
                    boolean mine = owned.contains(p.index());
                    answers.add(new ProduceResponseData.PartitionProduceResponse().setIndex(p.index())
                            .setErrorCode(mine ? 0 : Errors.NOT_LEADER_OR_FOLLOWER.code())
                            .setBaseOffset(mine ? 100 + p.index() : -1));
                }
                topics.add(new ProduceResponseData.TopicProduceResponse().setName(topic.name())
                        .setPartitionResponses(answers));
            }
            received.add(partitions);
            return new ProduceResponseData().setResponses(topics);
        }
    }

    private EventLoopGroup group;
    private final OwningBroker brokerA = new OwningBroker();
    private final OwningBroker brokerB = new OwningBroker();
    private final List<ScriptedBroker> servers = new ArrayList<>();
    private BrokerAddress addressA;
    private BrokerAddress addressB;
    private BackendSession session;

    @BeforeEach
    void start() throws InterruptedException {
        group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        addressA = new BrokerAddress(1, "127.0.0.1", listen(brokerA), null);
        addressB = new BrokerAddress(2, "127.0.0.1", listen(brokerB), null);
        session = TestClients.openSession(group);
    }

    private int listen(OwningBroker broker) throws InterruptedException {
        ScriptedBroker server = new ScriptedBroker(group, broker);
        servers.add(server);
        return server.port();
    }

    @AfterEach
    void stop() {
        session.close();
        servers.forEach(ScriptedBroker::close);
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private static RequestFrame produceFrame(short acks) throws Exception {
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        List<ProduceRequestData.PartitionProduceData> partitions = new ArrayList<>();
        for (int p = 0; p < 2; p++) {
            partitions.add(new ProduceRequestData.PartitionProduceData().setIndex(p).setRecords(
                    MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(("value-" + p).getBytes()))));
        }
        topics.add(new ProduceRequestData.TopicProduceData().setName("t").setPartitionData(partitions));
        ByteBuf buf = KafkaMessages.encodeRequest(ByteBufAllocator.DEFAULT, ApiKeys.PRODUCE, VERSION, "client",
                new ProduceRequestData().setAcks(acks).setTimeoutMs(5_000).setTopicData(topics));
        KafkaMessages.withRequestCorrelationId(buf, 42);
        return RequestFrame.parse(buf);
    }

    @Test
    void splitsByOwnerRetriesOnlyTheRejectedPartitionOnItsNewOwnerAndMerges() throws Exception {
        splitRetriedAndMerged(PartitionedRequestRunnerTest::startHere);
    }

    /** A client connection's requests arrive on its own loop, where they start without a queued task. */
    @Test
    void requestStartedOnTheConnectionsOwnLoopIsSplitRetriedAndMergedAlike() throws Exception {
        splitRetriedAndMerged(start -> session.eventLoop().submit(start::get).get(10, TimeUnit.SECONDS));
    }

    private static CompletableFuture<ReferenceCounted> startHere(Supplier<CompletableFuture<ReferenceCounted>> start) {
        return start.get();
    }

    /** Runs a request by calling the supplier it is given, on some thread, and returns the answer. */
    private interface Starter {
        CompletableFuture<ReferenceCounted> run(Supplier<CompletableFuture<ReferenceCounted>> start) throws Exception;
    }

    private void splitRetriedAndMerged(Starter starter) throws Exception {
        // t-0 is A's; the snapshot still says t-1 is B's, but A has taken it over.
        brokerA.owned.addAll(Set.of(0, 1));
        SwitchingRoutes table = new SwitchingRoutes();
        Ownership staleB = new Ownership(2, 7);
        table.current.set(RoutingSnapshot.builder().broker(addressA).broker(addressB)
                .partition("t", 0, new Ownership(1, 5)).partition("t", 1, staleB).build());
        table.afterInvalidation = RoutingSnapshot.builder().broker(addressA).broker(addressB)
                .partition("t", 0, new Ownership(1, 5)).partition("t", 1, new Ownership(1, 9)).build();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        PartitionedRequestRunner routing = new PartitionedRequestRunner(new OwnerLookup(table, List.of()),
                ids -> java.util.concurrent.CompletableFuture.completedFuture(java.util.Map.of()),
                new RetryFactory(Duration.ofMillis(1), Duration.ofMillis(5)), new ProxyMetrics(registry),
                Duration.ofSeconds(5), VersionBridge::none, null);

        RequestFrame frame = produceFrame((short) -1);
        ProduceRequestData request = frame.decodeBody();
        ByteBuf responseFrame = (ByteBuf) starter.run(() -> routing.execute(new ProduceApi(null), frame, request,
                TestClients.on(session), EntryAccess.everything()))
                .get(10, TimeUnit.SECONDS);
        ProduceResponseData response;
        try {
            assertThat(KafkaMessages.responseCorrelationId(responseFrame)).isEqualTo(42);
            response = KafkaMessages.decodeResponse(responseFrame, ApiKeys.PRODUCE, VERSION);
        } finally {
            responseFrame.release();
        }

        assertThat(brokerA.received).containsExactly(List.of(0), List.of(1));
        assertThat(brokerB.received).containsExactly(List.of(1));
        assertThat(table.invalidations).containsExactly("t-1@" + staleB);
        assertThat(response.responses().iterator().next().partitionResponses())
                .extracting(ProduceResponseData.PartitionProduceResponse::index,
                        ProduceResponseData.PartitionProduceResponse::errorCode,
                        ProduceResponseData.PartitionProduceResponse::baseOffset)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(0, (short) 0, 100L),
                        org.assertj.core.groups.Tuple.tuple(1, (short) 0, 101L));
        assertThat(registry.get("leasehold.requests.retries").counter().count()).isEqualTo(1.0);
    }

    @Test
    void unownedPartitionsGoToAnotherBrokerWhenOneCannotBeReached() throws Exception {
        brokerA.owned.addAll(Set.of(0, 1));
        int deadPort;
        try (java.net.ServerSocket closed = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            deadPort = closed.getLocalPort();
        }
        SwitchingRoutes table = new SwitchingRoutes();
        table.current.set(RoutingSnapshot.builder().broker(addressA)
                .broker(new BrokerAddress(3, "127.0.0.1", deadPort, null)).build());
        PartitionedRequestRunner routing = new PartitionedRequestRunner(new OwnerLookup(table, List.of()),
                ids -> java.util.concurrent.CompletableFuture.completedFuture(java.util.Map.of()),
                new RetryFactory(Duration.ofMillis(1), Duration.ofMillis(5)), new ProxyMetrics(new SimpleMeterRegistry()),
                Duration.ofSeconds(5), VersionBridge::none, null);

        RequestFrame frame = produceFrame((short) 1);
        ProduceRequestData request = frame.decodeBody();
        ByteBuf responseFrame = (ByteBuf) routing.execute(new ProduceApi(null), frame, request,
                TestClients.on(session), EntryAccess.everything())
                .get(10, TimeUnit.SECONDS);
        ProduceResponseData response;
        try {
            response = KafkaMessages.decodeResponse(responseFrame, ApiKeys.PRODUCE, VERSION);
        } finally {
            responseFrame.release();
        }

        assertThat(response.responses().iterator().next().partitionResponses())
                .extracting(ProduceResponseData.PartitionProduceResponse::errorCode).containsOnly((short) 0);
        assertThat(brokerA.received.stream().flatMap(List::stream)).containsExactlyInAnyOrder(0, 1);
        assertThat(table.invalidations).as("nothing owned, nothing to invalidate").isEmpty();
    }
}
