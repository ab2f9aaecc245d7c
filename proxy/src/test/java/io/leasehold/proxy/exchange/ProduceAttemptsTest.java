package io.leasehold.proxy.exchange;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.proxy.admin.ProxyMetrics;
import io.leasehold.proxy.apis.ProduceApi;
import io.leasehold.proxy.backend.BackendSession;
import io.leasehold.proxy.dispatch.RoutePolicy;
import io.leasehold.proxy.owners.OwnerLookup;
import io.leasehold.proxy.protocol.KafkaMessages;
import io.leasehold.proxy.protocol.RequestFrame;
import io.leasehold.proxy.request.ActiveRequests;
import io.leasehold.proxy.request.ClientContext;
import io.leasehold.proxy.request.ConnectionWork;
import io.leasehold.proxy.request.NegotiatedVersions;
import io.leasehold.proxy.request.PartitionWriteOrder;
import io.leasehold.proxy.testing.ScriptedBackends;
import io.leasehold.proxy.testing.SwitchingRoutes;
import io.leasehold.proxy.testing.TestClients;
import io.leasehold.proxy.versions.VersionBridge;
import io.leasehold.routing.snapshot.BrokerAddress;
import io.leasehold.routing.snapshot.Ownership;
import io.leasehold.routing.snapshot.RoutingSnapshot;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.types.RawTaggedField;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Produce attempts through {@link PartitionedRequestRunner}: what a client is told when a write's
 * outcome is unknown, how long and with what timeout rejected writes are retried, and that a
 * failing attempt neither hangs the request nor the later writes of the connection.
 */
class ProduceAttemptsTest {
    private static final short VERSION = 9;

    private ScriptedBackends backends;
    private BackendSession session;
    private final List<ProduceRequestData> received = Collections.synchronizedList(new ArrayList<>());
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @BeforeEach
    void start() {
        // Longer than any answer these tests expect: what they see comes from the proxy's own bounds.
        backends = new ScriptedBackends(Duration.ofSeconds(30));
        session = backends.session();
    }

    @AfterEach
    void stop() {
        backends.close();
    }

    private BrokerAddress broker(Function<ProduceRequestData, ApiMessage> script) throws InterruptedException {
        return backends.broker(1, body -> {
            received.add((ProduceRequestData) body);
            return script.apply((ProduceRequestData) body);
        });
    }

    private static void sleep(Duration pause) {
        try {
            Thread.sleep(pause.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static ProduceResponseData answerAll(ProduceRequestData request, Errors error) {
        ProduceResponseData.TopicProduceResponseCollection topics = new ProduceResponseData.TopicProduceResponseCollection();
        for (ProduceRequestData.TopicProduceData topic : request.topicData()) {
            List<ProduceResponseData.PartitionProduceResponse> answers = new ArrayList<>();
            topic.partitionData().forEach(p -> answers.add(new ProduceResponseData.PartitionProduceResponse()
                    .setIndex(p.index()).setErrorCode(error.code()).setBaseOffset(error == Errors.NONE ? 7 : -1)));
            topics.add(new ProduceResponseData.TopicProduceResponse().setName(topic.name()).setPartitionResponses(answers));
        }
        return new ProduceResponseData().setResponses(topics);
    }

    private PartitionedRequestRunner routing(SwitchingRoutes table) {
        return new PartitionedRequestRunner(new OwnerLookup(table, List.of()),
                ids -> CompletableFuture.completedFuture(Map.of()),
                new RetryFactory(Duration.ofMillis(20), Duration.ofMillis(50)), new ProxyMetrics(registry),
                Duration.ofSeconds(5), VersionBridge::none, null);
    }

    private double givenUp(String reason) {
        Counter counter = registry.find("leasehold.requests.retries.given.up").tags("api", "Produce", "reason", reason)
                .counter();
        return counter == null ? 0 : counter.count();
    }

    private static SwitchingRoutes ownedBy(BrokerAddress owner) {
        SwitchingRoutes table = new SwitchingRoutes();
        table.current.set(RoutingSnapshot.builder().broker(owner).partition("t", 0, new Ownership(1, 5)).build());
        // The owner keeps rejecting while etcd keeps naming it.
        table.afterInvalidation = table.current.get();
        return table;
    }

    private static RequestFrame produceFrame(int timeoutMs) throws Exception {
        return produceFrame(timeoutMs, 0);
    }

    private static RequestFrame produceFrame(int timeoutMs, int partition) throws Exception {
        return produceFrame(VERSION, timeoutMs, partition);
    }

    private static RequestFrame produceFrame(short version, int timeoutMs, int... partitions) throws Exception {
        List<ProduceRequestData.PartitionProduceData> data = new ArrayList<>();
        for (int partition : partitions) {
            data.add(new ProduceRequestData.PartitionProduceData().setIndex(partition).setRecords(
                    MemoryRecords.withRecords(Compression.NONE, new SimpleRecord("v".getBytes()))));
        }
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(new ProduceRequestData.TopicProduceData().setName("t").setPartitionData(data));
        ByteBuf buf = KafkaMessages.encodeRequest(ByteBufAllocator.DEFAULT, ApiKeys.PRODUCE, version, "client",
                new ProduceRequestData().setAcks((short) 1).setTimeoutMs(timeoutMs).setTopicData(topics));
        KafkaMessages.withRequestCorrelationId(buf, 42);
        return RequestFrame.parse(buf);
    }

    private static ProduceResponseData.PartitionProduceResponse produce(PartitionedRequestRunner routing,
            RequestFrame frame,
                                                                       ClientContext client) throws Exception {
        return produce(routing, frame, client, Duration.ofSeconds(10));
    }

    /** Fails unless the answer comes within {@code clientWaits}. */
    private static ProduceResponseData.PartitionProduceResponse produce(PartitionedRequestRunner routing,
            RequestFrame frame,
                                                                       ClientContext client, Duration clientWaits)
            throws Exception {
        ByteBuf responseFrame = (ByteBuf) routing.execute(new ProduceApi(null), frame, frame.decodeBody(), client,
                EntryAccess.everything())
                .get(clientWaits.toMillis(), TimeUnit.MILLISECONDS);
        try {
            return KafkaMessages.<ProduceResponseData>decodeResponse(responseFrame, ApiKeys.PRODUCE, VERSION)
                    .responses().iterator().next().partitionResponses().get(0);
        } finally {
            responseFrame.release();
        }
    }

    @Test
    void singleOwnersAnswerReachesTheClientByteForByteWithItsCorrelationIdInEveryServedVersion() throws Exception {
        for (short version = 3; version <= RoutePolicy.PRODUCE_MAX; version++) {
            ProduceResponseData answer = richAnswer(version);
            BrokerAddress owner = broker(request -> answer);
            RequestFrame frame = produceFrame(version, 30_000, 0, 1);

            ByteBuf forwarded = (ByteBuf) routing(ownedBy(owner))
                    .execute(new ProduceApi(null), frame, frame.decodeBody(), TestClients.on(session),
                            EntryAccess.everything())
                    .get(10, TimeUnit.SECONDS);
            ByteBuf expected = KafkaMessages.encodeResponse(ByteBufAllocator.DEFAULT, ApiKeys.PRODUCE, version, 42,
                    answer);
            try {
                assertThat(ByteBufUtil.getBytes(forwarded)).as("version %d", version)
                        .isEqualTo(ByteBufUtil.getBytes(expected));
            } finally {
                forwarded.release();
                expected.release();
            }
        }
    }

    /**
     * What a broker may say that the proxy has no reason to retry: a write taken, a write refused
     * with messages, and fields the proxy does not know.
     */
    private static ProduceResponseData richAnswer(short version) {
        ProduceResponseData.PartitionProduceResponse taken = new ProduceResponseData.PartitionProduceResponse()
                .setIndex(0).setBaseOffset(4_000_000_007L).setLogAppendTimeMs(1_764_600_000_000L).setLogStartOffset(12);
        ProduceResponseData.PartitionProduceResponse refused = new ProduceResponseData.PartitionProduceResponse()
                .setIndex(1).setErrorCode(Errors.INVALID_RECORD.code()).setBaseOffset(-1).setLogAppendTimeMs(-1)
                .setLogStartOffset(3);
        if (version >= 8) {
            refused.setErrorMessage("record 3 has no key").setRecordErrors(List.of(
                    new ProduceResponseData.BatchIndexAndErrorMessage().setBatchIndex(3).setBatchIndexErrorMessage("no key")));
        }
        ProduceResponseData.TopicProduceResponse topic = new ProduceResponseData.TopicProduceResponse().setName("t")
                .setPartitionResponses(List.of(taken, refused));
        ProduceResponseData.TopicProduceResponseCollection topics = new ProduceResponseData.TopicProduceResponseCollection();
        topics.add(topic);
        ProduceResponseData answer = new ProduceResponseData().setThrottleTimeMs(17).setResponses(topics);
        if (version >= 9) {
            refused.unknownTaggedFields().add(new RawTaggedField(5, new byte[] {1, 2, 3}));
            topic.unknownTaggedFields().add(new RawTaggedField(6, new byte[] {4}));
            answer.unknownTaggedFields().add(new RawTaggedField(7, new byte[] {5, 6}));
        }
        return answer;
    }

    @Test
    void writeTakenOnAFallbackRouteIsReportedToTheRoutingTable() throws Exception {
        BrokerAddress broker = broker(request -> answerAll(request, Errors.NONE));
        SwitchingRoutes table = new SwitchingRoutes();
        // The broker is live but etcd names no owner for t-0: the write goes by the fallback route.
        table.current.set(RoutingSnapshot.builder().broker(broker).partition("other", 0, new Ownership(1, 5)).build());

        ProduceResponseData.PartitionProduceResponse answer = produce(routing(table), produceFrame(5_000),
                TestClients.on(session));

        assertThat(Errors.forCode(answer.errorCode())).isEqualTo(Errors.NONE);
        assertThat(table.acceptances).containsExactly("t-0@1");
    }

    @Test
    void writeWhoseAnswerNeverCameIsReportedAsTimedOutWhichEveryProducerRetries() throws Exception {
        BrokerAddress owner = broker(request -> null);

        ProduceResponseData.PartitionProduceResponse answer = produce(routing(ownedBy(owner)), produceFrame(5_000),
                TestClients.on(session));

        assertThat(Errors.forCode(answer.errorCode())).isEqualTo(Errors.REQUEST_TIMED_OUT);
        assertThat(received).as("an unknown outcome is never re-sent by the proxy").hasSize(1);
    }

    @Test
    void rejectedWriteIsRetriedWithinMostOfTheClientsTimeoutAndForwardsOnlyWhatIsLeft() throws Exception {
        // Each answer takes a moment: the last attempt must still have time for it, or the client
        // would get an unknown outcome (REQUEST_TIMED_OUT) instead of the rejection.
        BrokerAddress owner = broker(request -> {
            sleep(Duration.ofMillis(100));
            return answerAll(request, Errors.NOT_LEADER_OR_FOLLOWER);
        });

        ProduceResponseData.PartitionProduceResponse answer = produce(routing(ownedBy(owner)), produceFrame(3_000),
                TestClients.on(session));

        assertThat(Errors.forCode(answer.errorCode())).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
        assertThat(received).hasSizeGreaterThan(1);
        assertThat(received.subList(1, received.size())).extracting(ProduceRequestData::timeoutMs)
                .as("retries carry the time left of 80 % of 3000 ms").allSatisfy(t -> assertThat(t).isBetween(0, 2_400))
                .isSortedAccordingTo(Collections.reverseOrder());
        assertThat(givenUp("budget")).as("the rejection handed on is counted").isEqualTo(1);
    }

    @Test
    void rejectedWriteIsRetriedForAsLongAsItsBudgetAllowsNotForAFixedNumberOfAttempts() throws Exception {
        // Ownership moving faster than the proxy's view of it: many attempts in a row meet a stale route.
        int rejections = 25;
        BrokerAddress owner = broker(request -> answerAll(request,
                received.size() <= rejections ? Errors.NOT_LEADER_OR_FOLLOWER : Errors.NONE));

        ProduceResponseData.PartitionProduceResponse answer = produce(routing(ownedBy(owner)), produceFrame(30_000),
                TestClients.on(session), Duration.ofSeconds(20));

        assertThat(Errors.forCode(answer.errorCode())).as("written on attempt %d", received.size())
                .isEqualTo(Errors.NONE);
        assertThat(received).hasSize(rejections + 1);
        assertThat(givenUp("budget") + givenUp("client_gone")).isZero();
    }

    @Test
    void writeToAnOwnerThatCannotBeReachedIsAnsweredRetriableAfterAFewTriesNotTheWholeBudget() throws Exception {
        int closedPort;
        try (ServerSocket gone = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = gone.getLocalPort();
        }
        BrokerAddress owner = new BrokerAddress(1, "127.0.0.1", closedPort, null);

        ProduceResponseData.PartitionProduceResponse answer = produce(routing(ownedBy(owner)), produceFrame(30_000),
                TestClients.on(session), Duration.ofSeconds(10));

        assertThat(Errors.forCode(answer.errorCode())).as("never sent, so the client may send it again")
                .isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
        assertThat(givenUp("unreachable")).isEqualTo(1);
    }

    @Test
    void writeToAPausedOwnerIsAnsweredTimedOutWhileTheClientStillWaits() throws Exception {
        // Accepted by the kernel, never read: a paused broker. The backend session itself waits 30 s.
        try (ServerSocket paused = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
            BrokerAddress owner = new BrokerAddress(1, "127.0.0.1", paused.getLocalPort(), null);

            ProduceResponseData.PartitionProduceResponse answer = produce(routing(ownedBy(owner)), produceFrame(1_000),
                    TestClients.on(session), Duration.ofSeconds(3));

            assertThat(Errors.forCode(answer.errorCode())).isEqualTo(Errors.REQUEST_TIMED_OUT);
        }
    }

    @Test
    void writeInFlightToAnOwnerThatLostThePartitionIsAnsweredOnceEtcdNamesAnother() throws Exception {
        try (ServerSocket paused = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
            BrokerAddress owner = new BrokerAddress(1, "127.0.0.1", paused.getLocalPort(), null);
            SwitchingRoutes table = ownedBy(owner);
            PartitionedRequestRunner routing = routing(table);
            RequestFrame frame = produceFrame(30_000);
            CompletableFuture<?> pending = routing.execute(new ProduceApi(null), frame, frame.decodeBody(),
                    TestClients.on(session), EntryAccess.everything());
            Thread.sleep(300);
            assertThat(pending).as("the paused owner holds the write").isNotDone();

            table.current.set(RoutingSnapshot.builder().broker(owner).partition("t", 0, new Ownership(2, 11)).build());
            ByteBuf responseFrame = (ByteBuf) pending.get(15, TimeUnit.SECONDS);
            try {
                ProduceResponseData.PartitionProduceResponse answer = KafkaMessages.<ProduceResponseData>decodeResponse(
                        responseFrame, ApiKeys.PRODUCE, VERSION).responses().iterator().next().partitionResponses().get(0);
                assertThat(Errors.forCode(answer.errorCode())).as("outcome unknown, for the client to retry")
                        .isEqualTo(Errors.REQUEST_TIMED_OUT);
            } finally {
                responseFrame.release();
            }
        }
    }

    @Test
    void rejectedWriteIsNotRetriedOnceTheClientHungUp() throws Exception {
        BrokerAddress owner = broker(request -> answerAll(request, Errors.NOT_LEADER_OR_FOLLOWER));
        ConnectionWork work = new ConnectionWork(new ActiveRequests(), () -> { });
        work.clientClosed();
        ClientContext gone = new ClientContext(session, new PartitionWriteOrder(), work, new NegotiatedVersions(),
                ByteBufAllocator.DEFAULT, "gone", null);

        produce(routing(ownedBy(owner)), produceFrame(5_000), gone);

        assertThat(received).as("the one attempt already under way, no retries").hasSize(1);
        assertThat(givenUp("client_gone")).isEqualTo(1);
    }

    @Test
    void requestThatCannotBeListedFailsAndIsReleased() throws Exception {
        BrokerAddress owner = broker(request -> answerAll(request, Errors.NONE));
        RequestFrame negativePartition = produceFrame(5_000, -1);

        assertThatThrownBy(() -> routing(ownedBy(owner)).execute(new ProduceApi(null), negativePartition,
                negativePartition.decodeBody(), TestClients.on(session), EntryAccess.everything())
                .get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class);
        assertThat(negativePartition.refCnt()).as("the request frame is released").isZero();
        assertThat(received).isEmpty();
    }

    @Test
    void attemptThatThrowsFailsTheRequestReleasesItAndDoesNotHoldUpLaterWrites() throws Exception {
        BrokerAddress owner = broker(request -> answerAll(request, Errors.NONE));
        SwitchingRoutes table = ownedBy(owner);
        RoutingSnapshot good = table.current.get();
        table.current.set(null);
        PartitionedRequestRunner routing = routing(table);
        ClientContext client = TestClients.on(session);
        RequestFrame first = produceFrame(5_000);

        assertThatThrownBy(() -> routing.execute(new ProduceApi(null), first, first.decodeBody(), client,
                EntryAccess.everything())
                .get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
        assertThat(first.refCnt()).as("the request frame is released").isZero();

        table.current.set(good);
        ProduceResponseData.PartitionProduceResponse answer = produce(routing, produceFrame(5_000), client);
        assertThat(Errors.forCode(answer.errorCode())).isEqualTo(Errors.NONE);
    }
}
