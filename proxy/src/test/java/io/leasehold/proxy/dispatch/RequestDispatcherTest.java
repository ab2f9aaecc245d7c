package io.leasehold.proxy.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.leasehold.proxy.admin.ProxyMetrics;
import io.leasehold.proxy.authorization.Authorizer;
import io.leasehold.proxy.backend.BackendSession;
import io.leasehold.proxy.owners.OwnerLookup;
import io.leasehold.proxy.presentation.ClusterPresentation;
import io.leasehold.proxy.presentation.ProxyIdentity;
import io.leasehold.proxy.protocol.KafkaMessages;
import io.leasehold.proxy.protocol.RequestFrame;
import io.leasehold.proxy.request.ActiveRequests;
import io.leasehold.proxy.request.ClientContext;
import io.leasehold.proxy.request.ConnectionWork;
import io.leasehold.proxy.request.NegotiatedVersions;
import io.leasehold.proxy.request.PartitionWriteOrder;
import io.leasehold.proxy.testing.FixedRoutes;
import io.leasehold.proxy.testing.ScriptedBroker;
import io.leasehold.proxy.testing.TestClients;
import io.leasehold.routing.snapshot.BrokerAddress;
import io.leasehold.routing.snapshot.RoutingSnapshot;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.ReferenceCounted;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link RequestDispatcher} when the broker it asks goes away: the client's request frame is
 * released on every outcome, not only on success.
 */
class RequestDispatcherTest {
    private EventLoopGroup group;
    private ScriptedBroker broker;
    private BackendSession control;
    private BackendSession clientSession;

    /** Knows its API versions, but hangs up on every Metadata request. */
    private static ApiMessage hangsUpOnMetadata(ApiMessage request) {
        if (request instanceof MetadataRequestData || request instanceof CreateTopicsRequestData) {
            return null;
        }
        ApiVersionsResponseData.ApiVersionCollection keys = new ApiVersionsResponseData.ApiVersionCollection();
        keys.add(new ApiVersionsResponseData.ApiVersion().setApiKey(ApiKeys.METADATA.id).setMinVersion((short) 0)
                .setMaxVersion((short) 12));
        keys.add(new ApiVersionsResponseData.ApiVersion().setApiKey(ApiKeys.CREATE_TOPICS.id).setMinVersion((short) 2)
                .setMaxVersion((short) 7));
        return new ApiVersionsResponseData().setApiKeys(keys);
    }

    @BeforeEach
    void start() throws InterruptedException {
        group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        broker = new ScriptedBroker(group, RequestDispatcherTest::hangsUpOnMetadata);
        control = TestClients.openSession(group);
        clientSession = TestClients.openSession(group);
    }

    @AfterEach
    void stop() {
        control.close();
        clientSession.close();
        broker.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** A router whose only broker, id 7, is the scripted one; it presents itself as proxy.example:9092. */
    private RequestDispatcher routerToTheScriptedBroker(ProxyMetrics metrics) {
        OwnerLookup owners = new OwnerLookup(new FixedRoutes(RoutingSnapshot.builder()
                .broker(new BrokerAddress(7, "127.0.0.1", broker.port(), null)).build()), List.of());
        return new RequestDispatcher(owners, control, ByteBufAllocator.DEFAULT,
                ClusterPresentation.singleNode(new ProxyIdentity(0, "proxy.example", 9092)),
                metrics, new RequestDispatcher.Settings(Duration.ofMinutes(1), Duration.ofMillis(1),
                        Duration.ofMillis(5),
                        Duration.ofSeconds(5)), Authorizer.open(), null);
    }

    @Test
    void aMetadataRequestNoBrokerAnswersGetsTheProxyAndLeaderNotAvailableAndIsReleased() throws Exception {
        RequestDispatcher router = routerToTheScriptedBroker(new ProxyMetrics(new SimpleMeterRegistry()));
        ByteBuf buf = KafkaMessages.encodeRequest(ByteBufAllocator.DEFAULT, ApiKeys.METADATA, (short) 12, "client",
                new MetadataRequestData().setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName("orders"))));
        RequestFrame request = RequestFrame.parse(buf);

        ByteBuf answer = (ByteBuf) router.handle(request, TestClients.on(clientSession)).get(10, TimeUnit.SECONDS);

        try {
            MetadataResponseData response = KafkaMessages.decodeResponse(answer, ApiKeys.METADATA, (short) 12);
            assertThat(response.brokers()).singleElement().satisfies(b -> assertThat(b.host() + ":" + b.port())
                    .isEqualTo("proxy.example:9092"));
            assertThat(response.topics()).singleElement().satisfies(topic -> {
                assertThat(topic.name()).isEqualTo("orders");
                assertThat(topic.errorCode()).isEqualTo(Errors.LEADER_NOT_AVAILABLE.code());
            });
        } finally {
            answer.release();
        }
        assertThat(broker.requests(ApiKeys.METADATA)).as("the broker hung up on it").isEqualTo(1);
        assertThat(request.refCnt()).as("request frame released").isZero();
    }

    @Test
    void aBrokerFailureAnsweredInsideAResponseIsCountedAsABackendFailure() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RequestDispatcher router = routerToTheScriptedBroker(new ProxyMetrics(registry));
        ByteBuf buf = KafkaMessages.encodeRequest(ByteBufAllocator.DEFAULT, ApiKeys.CREATE_TOPICS, (short) 7, "client",
                new CreateTopicsRequestData().setTimeoutMs(1000));

        ReferenceCounted answer = router.handle(RequestFrame.parse(buf), TestClients.on(clientSession))
                .get(10, TimeUnit.SECONDS);

        assertThat(answer).as("answered with an error code inside a CreateTopics response").isNotNull();
        answer.release();
        assertThat(registry.get("leasehold.backend.request.failures").tag("api", ApiKeys.CREATE_TOPICS.name)
                .tag("reason", "disconnected").counter().count()).isEqualTo(1);
    }

    /** Hands out no memory: every response the proxy builds itself fails to encode. */
    private static final class RefusingAllocator extends AbstractByteBufAllocator {
        RefusingAllocator() {
            super(false);
        }

        @Override
        protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
            throw new IllegalStateException("no memory for a response");
        }

        @Override
        protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
            throw new IllegalStateException("no memory for a response");
        }

        @Override
        public boolean isDirectBufferPooled() {
            return false;
        }
    }

    @Test
    void aLocalAnswerThatCannotBeEncodedFailsTheRequestAndReleasesItsFrameOnce() throws Exception {
        RequestDispatcher router = routerToTheScriptedBroker(new ProxyMetrics(new SimpleMeterRegistry()));
        NegotiatedVersions versions = new NegotiatedVersions();
        ApiVersionsResponseData.ApiVersionCollection keys = new ApiVersionsResponseData.ApiVersionCollection();
        keys.add(new ApiVersionsResponseData.ApiVersion().setApiKey(ApiKeys.FIND_COORDINATOR.id)
                .setMinVersion((short) 0).setMaxVersion((short) 6));
        versions.remember(new ApiVersionsResponseData().setApiKeys(keys));
        ClientContext client = new ClientContext(clientSession, new PartitionWriteOrder(),
                new ConnectionWork(new ActiveRequests(), () -> { }), versions, new RefusingAllocator(), "test", null);
        RequestFrame request = RequestFrame.parse(KafkaMessages.encodeRequest(ByteBufAllocator.DEFAULT,
                ApiKeys.FIND_COORDINATOR, (short) 3, "client", new FindCoordinatorRequestData().setKey("orders")));

        Throwable failure = catchThrowable(() -> router.handle(request, client).get(10, TimeUnit.SECONDS));

        assertThat(failure).as("the request fails through its future, not by throwing")
                .isInstanceOf(ExecutionException.class).hasRootCauseMessage("no memory for a response");
        assertThat(request.refCnt()).as("request frame released").isZero();
    }
}
