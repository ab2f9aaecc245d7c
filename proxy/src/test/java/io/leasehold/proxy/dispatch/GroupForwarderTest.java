package io.leasehold.proxy.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.proxy.admin.ProxyMetrics;
import io.leasehold.proxy.backend.BackendSession;
import io.leasehold.proxy.exchange.RetryFactory;
import io.leasehold.proxy.owners.OwnerLookup;
import io.leasehold.proxy.protocol.KafkaMessages;
import io.leasehold.proxy.protocol.MalformedRequestException;
import io.leasehold.proxy.protocol.RequestFrame;
import io.leasehold.proxy.request.ClientContext;
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
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.nio.NioIoHandler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link GroupForwarder} against two in-test brokers, one of which is no longer the coordinator. */
class GroupForwarderTest {
    private static final short VERSION = 4;
    private static final short COMMIT_VERSION = 8;

    private EventLoopGroup group;
    private ScriptedBroker formerCoordinator;
    private ScriptedBroker coordinator;
    private BackendSession session;

    @BeforeEach
    void start() throws InterruptedException {
        group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        formerCoordinator = new ScriptedBroker(group,
                body -> new HeartbeatResponseData().setErrorCode(Errors.NOT_COORDINATOR.code()));
        coordinator = new ScriptedBroker(group, body -> new HeartbeatResponseData());
        session = TestClients.openSession(group);
    }

    @AfterEach
    void stop() {
        session.close();
        formerCoordinator.close();
        coordinator.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void notCoordinatorDropsTheRouteAndRetriesOnTheNewOwner() throws Exception {
        BrokerAddress former = new BrokerAddress(1, "127.0.0.1", formerCoordinator.port(), null);
        BrokerAddress current = new BrokerAddress(2, "127.0.0.1", coordinator.port(), null);
        Ownership stale = new Ownership(1, 11);
        SwitchingRoutes routes = new SwitchingRoutes();
        routes.current.set(RoutingSnapshot.builder().broker(former).broker(current).group("payments", stale).build());
        routes.afterInvalidation = RoutingSnapshot.builder().broker(former).broker(current)
                .group("payments", new Ownership(2, 12)).build();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        GroupForwarder router = new GroupForwarder(new OwnerLookup(routes, java.util.List.of()),
                new RetryFactory(Duration.ofMillis(1), Duration.ofMillis(5)), new ProxyMetrics(registry),
                new GroupDeadlines(Duration.ofSeconds(5)), VersionBridge::none);

        ByteBuf request = KafkaMessages.encodeRequest(ByteBufAllocator.DEFAULT, ApiKeys.HEARTBEAT, VERSION, "c",
                new HeartbeatRequestData().setGroupId("payments").setGenerationId(3).setMemberId("m"));
        KafkaMessages.withRequestCorrelationId(request, 77);
        ByteBuf response = router.route(RequestFrame.parse(request),
                TestClients.on(session))
                .get(10, TimeUnit.SECONDS);
        HeartbeatResponseData answer;
        try {
            assertThat(KafkaMessages.responseCorrelationId(response)).isEqualTo(77);
            answer = KafkaMessages.decodeResponse(response, ApiKeys.HEARTBEAT, VERSION);
        } finally {
            response.release();
        }

        assertThat(answer.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(routes.invalidations).containsExactly("payments@" + stale);
        assertThat(formerCoordinator.requests(ApiKeys.HEARTBEAT)).isEqualTo(1);
        assertThat(coordinator.requests(ApiKeys.HEARTBEAT)).isEqualTo(1);
        assertThat(registry.get("leasehold.backend.rejections").tag("error", "not_coordinator").counter().count()).isEqualTo(1.0);
    }
    @Test
    void requestTimedOutFromTheCoordinatorIsRetriedThereAndNeverReachesTheClient() throws Exception {
        java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
        try (ScriptedBroker flaky = new ScriptedBroker(group, body -> new HeartbeatResponseData().setErrorCode(
                calls.incrementAndGet() <= 2 ? Errors.REQUEST_TIMED_OUT.code() : Errors.NONE.code()))) {
            assertThat(heartbeatThrough(flaky, Duration.ofSeconds(5))).isEqualTo(Errors.NONE);
            assertThat(flaky.requests(ApiKeys.HEARTBEAT)).isEqualTo(3);
        }
    }

    @Test
    void aCoordinatorThatKeepsTimingOutIsAnsweredAsNotAvailableSoClientsRediscoverIt() throws Exception {
        try (ScriptedBroker stuck = new ScriptedBroker(group,
                body -> new HeartbeatResponseData().setErrorCode(Errors.REQUEST_TIMED_OUT.code()))) {
            assertThat(heartbeatThrough(stuck, Duration.ofMillis(200))).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);
        }
    }

    private Errors heartbeatThrough(ScriptedBroker owner, Duration budget) throws Exception {
        SwitchingRoutes routes = new SwitchingRoutes();
        routes.current.set(RoutingSnapshot.builder().broker(new BrokerAddress(1, "127.0.0.1", owner.port(), null))
                .group("payments", new Ownership(1, 11)).build());
        GroupForwarder router = new GroupForwarder(new OwnerLookup(routes, java.util.List.of()),
                new RetryFactory(Duration.ofMillis(1), Duration.ofMillis(5)), new ProxyMetrics(new SimpleMeterRegistry()),
                new GroupDeadlines(budget), VersionBridge::none);
        ByteBuf request = KafkaMessages.encodeRequest(ByteBufAllocator.DEFAULT, ApiKeys.HEARTBEAT, VERSION, "c",
                new HeartbeatRequestData().setGroupId("payments").setGenerationId(3).setMemberId("m"));
        ByteBuf response = router.route(RequestFrame.parse(request), TestClients.on(session)).get(10, TimeUnit.SECONDS);
        try {
            HeartbeatResponseData answer = KafkaMessages.decodeResponse(response, ApiKeys.HEARTBEAT, VERSION);
            assertThat(routes.invalidations).as("the owner is right; only its etcd was slow").isEmpty();
            return Errors.forCode(answer.errorCode());
        } finally {
            response.release();
        }
    }

    @Test
    void aRejectedCommitIsRetriedBeforeTheConnectionsLaterCommitOfTheSameGroupIsSent() throws Exception {
        List<Long> arrivals = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch firstRejected = new CountDownLatch(1);
        try (ScriptedBroker coordinatorOnceBusy = new ScriptedBroker(group, body -> {
            long offset = ((OffsetCommitRequestData) body).topics().get(0).partitions().get(0).committedOffset();
            arrivals.add(offset);
            boolean reject = offset == 1 && firstRejected.getCount() > 0;
            firstRejected.countDown();
            return commitAnswer(reject ? Errors.NOT_COORDINATOR : Errors.NONE);
        })) {
            SwitchingRoutes routes = new SwitchingRoutes();
            routes.current.set(RoutingSnapshot.builder()
                    .broker(new BrokerAddress(1, "127.0.0.1", coordinatorOnceBusy.port(), null))
                    .group("payments", new Ownership(1, 11)).build());
            routes.afterInvalidation = routes.current.get();
            // The retry's backoff leaves the later commit ample time to overtake it, were it not held back.
            GroupForwarder router = new GroupForwarder(new OwnerLookup(routes, java.util.List.of()),
                    new RetryFactory(Duration.ofMillis(400), Duration.ofMillis(400)),
                    new ProxyMetrics(new SimpleMeterRegistry()), new GroupDeadlines(Duration.ofSeconds(5)),
                    VersionBridge::none);
            EmbeddedChannel clientChannel = new EmbeddedChannel();
            ClientContext client = TestClients.on(session, clientChannel);

            CompletableFuture<ByteBuf> earlier = router.route(commitOf(1), client);
            assertThat(firstRejected.await(10, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<ByteBuf> later = router.route(commitOf(2), client);

            assertThat(commitError(earlier)).isEqualTo(Errors.NONE);
            assertThat(commitError(later)).isEqualTo(Errors.NONE);
            assertThat(arrivals).containsExactly(1L, 1L, 2L);
            clientChannel.close();
        }
    }

    private static RequestFrame commitOf(long offset) throws MalformedRequestException {
        ByteBuf request = KafkaMessages.encodeRequest(ByteBufAllocator.DEFAULT, ApiKeys.OFFSET_COMMIT, COMMIT_VERSION,
                "c", new OffsetCommitRequestData().setGroupId("payments").setGenerationIdOrMemberEpoch(-1)
                        .setTopics(List.of(new OffsetCommitRequestData.OffsetCommitRequestTopic().setName("orders")
                                .setPartitions(List.of(new OffsetCommitRequestData.OffsetCommitRequestPartition()
                                        .setPartitionIndex(0).setCommittedOffset(offset))))));
        return RequestFrame.parse(request);
    }

    private static OffsetCommitResponseData commitAnswer(Errors error) {
        return new OffsetCommitResponseData().setTopics(List.of(new OffsetCommitResponseData.OffsetCommitResponseTopic()
                .setName("orders").setPartitions(List.of(new OffsetCommitResponseData.OffsetCommitResponsePartition()
                        .setPartitionIndex(0).setErrorCode(error.code())))));
    }

    private static Errors commitError(CompletableFuture<ByteBuf> answer) throws Exception {
        ByteBuf response = answer.get(10, TimeUnit.SECONDS);
        try {
            OffsetCommitResponseData decoded = KafkaMessages.decodeResponse(response, ApiKeys.OFFSET_COMMIT,
                    COMMIT_VERSION);
            return Errors.forCode(decoded.topics().get(0).partitions().get(0).errorCode());
        } finally {
            response.release();
        }
    }
}
