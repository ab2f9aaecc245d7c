package io.leasehold.proxy.exchange;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.leasehold.proxy.admin.ProxyMetrics;
import io.leasehold.proxy.apis.ProduceApi;
import io.leasehold.proxy.owners.OwnerLookup;
import io.leasehold.proxy.protocol.KafkaMessages;
import io.leasehold.proxy.protocol.RequestFrame;
import io.leasehold.proxy.request.ClientContext;
import io.leasehold.proxy.testing.ScriptedBackends;
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
import io.netty.util.ReferenceCounted;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A Produce split over two owners on one client connection (the single-node presentation) while
 * one owner is silent: the live owner's partitions are answered once the silent owner's part is
 * past the owner deadline, later writes for the silent owner are answered at once without being
 * sent, and the owner is written to again once its unanswered request ends or its partitions
 * move. The live owner answers at once; the client waits 30 s, the backend session 30 s unless
 * a test says otherwise, so every earlier answer comes from the owner deadline.
 */
class SilentOwnerProduceTest {
    private static final short VERSION = 9;
    private static final Duration OWNER_DEADLINE = Duration.ofSeconds(2);
    /** Far below what the client and the backend session wait, far above the owner deadline. */
    private static final Duration ANSWERED_WITHIN = Duration.ofSeconds(15);

    private ScriptedBackends backends;

    @AfterEach
    void stop() {
        if (backends != null) {
            backends.close();
        }
    }

    private static ApiMessage answerAll(ApiMessage body) {
        ProduceRequestData request = (ProduceRequestData) body;
        ProduceResponseData.TopicProduceResponseCollection topics = new ProduceResponseData.TopicProduceResponseCollection();
        for (ProduceRequestData.TopicProduceData topic : request.topicData()) {
            List<ProduceResponseData.PartitionProduceResponse> answers = new ArrayList<>();
            topic.partitionData().forEach(p -> answers.add(new ProduceResponseData.PartitionProduceResponse()
                    .setIndex(p.index()).setBaseOffset(7)));
            topics.add(new ProduceResponseData.TopicProduceResponse().setName(topic.name()).setPartitionResponses(answers));
        }
        return new ProduceResponseData().setResponses(topics);
    }

    private static SwitchingRoutes routes(BrokerAddress... ownerOfPartition) {
        RoutingSnapshot.Builder snapshot = RoutingSnapshot.builder();
        for (int p = 0; p < ownerOfPartition.length; p++) {
            snapshot.broker(ownerOfPartition[p]).partition("t", p, new Ownership(ownerOfPartition[p].id(), 5));
        }
        SwitchingRoutes table = new SwitchingRoutes();
        table.current.set(snapshot.build());
        return table;
    }

    private static PartitionedRequestRunner routing(SwitchingRoutes table) {
        return new PartitionedRequestRunner(new OwnerLookup(table, List.of()),
                ids -> CompletableFuture.completedFuture(Map.of()),
                new RetryFactory(Duration.ofMillis(20), Duration.ofMillis(50)), new ProxyMetrics(new SimpleMeterRegistry()),
                Duration.ofSeconds(30), VersionBridge::none, null);
    }

    /** A Produce (acks=all, the client waits 30 s) of one record to each of partitions 0 and 1 of "t". */
    private static RequestFrame twoPartitionWrite() throws Exception {
        List<ProduceRequestData.PartitionProduceData> data = new ArrayList<>();
        for (int partition = 0; partition < 2; partition++) {
            data.add(new ProduceRequestData.PartitionProduceData().setIndex(partition).setRecords(
                    MemoryRecords.withRecords(Compression.NONE, new SimpleRecord("v".getBytes()))));
        }
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(new ProduceRequestData.TopicProduceData().setName("t").setPartitionData(data));
        ByteBuf buf = KafkaMessages.encodeRequest(ByteBufAllocator.DEFAULT, ApiKeys.PRODUCE, VERSION, "client",
                new ProduceRequestData().setAcks((short) -1).setTimeoutMs(30_000).setTopicData(topics));
        KafkaMessages.withRequestCorrelationId(buf, 42);
        return RequestFrame.parse(buf);
    }

    /** Each partition's error in the answer to {@link #twoPartitionWrite()}, as the client gets it. */
    private static Map<Integer, Errors> produce(PartitionedRequestRunner routing, ProduceApi api, ClientContext client)
            throws Exception {
        RequestFrame frame = twoPartitionWrite();
        ByteBuf responseFrame = (ByteBuf) routing.execute(api, frame, frame.decodeBody(), client,
                EntryAccess.everything())
                .get(ANSWERED_WITHIN.toMillis(), TimeUnit.MILLISECONDS);
        try {
            Map<Integer, Errors> errors = new HashMap<>();
            KafkaMessages.<ProduceResponseData>decodeResponse(responseFrame, ApiKeys.PRODUCE, VERSION).responses()
                    .forEach(topic -> topic.partitionResponses().forEach(p ->
                            errors.put(p.index(), Errors.forCode(p.errorCode()))));
            return errors;
        } finally {
            responseFrame.release();
        }
    }

    @Test
    void liveOwnersPartitionsAreAnsweredOnceTheOtherOwnerLeavesItsPartUnansweredPastTheDeadline() throws Exception {
        backends = new ScriptedBackends(Duration.ofSeconds(30));
        BrokerAddress live = backends.broker(1, SilentOwnerProduceTest::answerAll);
        BrokerAddress silent = backends.broker(2, body -> ScriptedBroker.SILENCE);

        Map<Integer, Errors> answer = produce(routing(routes(live, silent)), new ProduceApi(OWNER_DEADLINE),
                TestClients.on(backends.session()));

        assertThat(answer).containsEntry(0, Errors.NONE)
                .as("the silent owner may still write it: an unknown outcome, retried by every producer")
                .containsEntry(1, Errors.REQUEST_TIMED_OUT);
    }

    @Test
    void writesForAKnownSilentOwnerAreAnsweredAtOnceWithoutQueueingAtIt() throws Exception {
        backends = new ScriptedBackends(Duration.ofSeconds(30));
        BrokerAddress live = backends.broker(1, SilentOwnerProduceTest::answerAll);
        ScriptedBroker silentBroker = backends.scripted(body -> ScriptedBroker.SILENCE);
        BrokerAddress silent = new BrokerAddress(2, "127.0.0.1", silentBroker.port(), null);
        PartitionedRequestRunner routing = routing(routes(live, silent));
        ProduceApi api = new ProduceApi(OWNER_DEADLINE);
        ClientContext client = TestClients.on(backends.session());
        produce(routing, api, client);

        for (int i = 0; i < 5; i++) {
            assertThat(produce(routing, api, client)).containsEntry(0, Errors.NONE)
                    .as("never sent, so certainly not written: retried without risk of a duplicate")
                    .containsEntry(1, Errors.NOT_LEADER_OR_FOLLOWER);
        }
        assertThat(silentBroker.requests(ApiKeys.PRODUCE)).as("writes sent to the silent owner").isEqualTo(1);
    }

    @Test
    void silentOwnerIsWrittenToAgainOnceItsUnansweredRequestEnds() throws Exception {
        // The backend session gives up on the silent owner's request after 5 s and closes that connection.
        backends = new ScriptedBackends(Duration.ofSeconds(5));
        BrokerAddress live = backends.broker(1, SilentOwnerProduceTest::answerAll);
        AtomicBoolean paused = new AtomicBoolean(true);
        ScriptedBroker ownerBroker = backends.scripted(body -> paused.get() ? ScriptedBroker.SILENCE : answerAll(body));
        BrokerAddress owner = new BrokerAddress(2, "127.0.0.1", ownerBroker.port(), null);
        PartitionedRequestRunner routing = routing(routes(live, owner));
        ProduceApi api = new ProduceApi(OWNER_DEADLINE);
        ClientContext client = TestClients.on(backends.session());
        assertThat(produce(routing, api, client)).containsEntry(1, Errors.REQUEST_TIMED_OUT);
        assertThat(produce(routing, api, client)).containsEntry(1, Errors.NOT_LEADER_OR_FOLLOWER);
        paused.set(false);

        await().atMost(ANSWERED_WITHIN).pollInterval(Duration.ofMillis(50))
                .until(() -> produce(routing, api, client).get(1) == Errors.NONE);
        assertThat(ownerBroker.requests(ApiKeys.PRODUCE)).as("the unanswered write and the first after it ended")
                .isEqualTo(2);
    }

    @Test
    void partitionsOfASilentOwnerThatMovedToAnotherOwnerAreWrittenThere() throws Exception {
        backends = new ScriptedBackends(Duration.ofSeconds(30));
        BrokerAddress live = backends.broker(1, SilentOwnerProduceTest::answerAll);
        BrokerAddress silent = backends.broker(2, body -> ScriptedBroker.SILENCE);
        BrokerAddress successor = backends.broker(3, SilentOwnerProduceTest::answerAll);
        SwitchingRoutes table = routes(live, silent);
        PartitionedRequestRunner routing = routing(table);
        ProduceApi api = new ProduceApi(OWNER_DEADLINE);
        ClientContext client = TestClients.on(backends.session());
        assertThat(produce(routing, api, client)).containsEntry(1, Errors.REQUEST_TIMED_OUT);

        table.current.set(routes(live, successor).snapshot());

        assertThat(produce(routing, api, client)).containsEntry(0, Errors.NONE).containsEntry(1, Errors.NONE);
    }

    @Test
    void partitionsOfAnUnreachableOwnerAreRetriedOnlyUntilTheDeadlineThenAnsweredForTheClientToRetry()
            throws Exception {
        backends = new ScriptedBackends(Duration.ofSeconds(30));
        BrokerAddress live = backends.broker(1, SilentOwnerProduceTest::answerAll);
        BrokerAddress dead;
        try (ServerSocket closed = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            dead = new BrokerAddress(2, "127.0.0.1", closed.getLocalPort(), null);
        }
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        // A full round of tries at this backoff takes at least twice the deadline.
        PartitionedRequestRunner routing = new PartitionedRequestRunner(new OwnerLookup(routes(live, dead), List.of()),
                ids -> CompletableFuture.completedFuture(Map.of()),
                new RetryFactory(Duration.ofMillis(500), Duration.ofSeconds(1)), new ProxyMetrics(registry),
                Duration.ofSeconds(30), VersionBridge::none, null);

        Map<Integer, Errors> answer = produce(routing, new ProduceApi(OWNER_DEADLINE),
                TestClients.on(backends.session()));

        assertThat(answer).containsEntry(0, Errors.NONE)
                .as("never written, and etcd still names the dead owner: the client retries")
                .containsEntry(1, Errors.NOT_LEADER_OR_FOLLOWER);
        assertThat(registry.get("leasehold.backend.request.failures").tags("api", "Produce", "reason", "unreachable")
                .counter().count()).as("tries at the dead owner").isLessThan(PartitionedExchange.UNREACHABLE_TRIES);
    }

    @Test
    void withoutAnOwnerDeadlineEveryOwnerIsAwaited() throws Exception {
        backends = new ScriptedBackends(Duration.ofSeconds(30));
        BrokerAddress live = backends.broker(1, SilentOwnerProduceTest::answerAll);
        BrokerAddress silent = backends.broker(2, body -> ScriptedBroker.SILENCE);
        RequestFrame frame = twoPartitionWrite();

        CompletableFuture<ReferenceCounted> pending = routing(routes(live, silent)).execute(new ProduceApi(null),
                frame, frame.decodeBody(), TestClients.on(backends.session()), EntryAccess.everything());
        // The answer comes when the teardown closes the silent broker's connection: nobody else frees it.
        pending.thenAccept(ReferenceCounted::release);

        Thread.sleep(OWNER_DEADLINE.multipliedBy(4).toMillis());
        assertThat(pending).as("node-per-owner: the silent owner's part is awaited").isNotDone();
    }
}
