package io.leasehold.proxy.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.proxy.backend.BackendSession;
import io.leasehold.proxy.owners.OwnerLookup;
import io.leasehold.proxy.presentation.ClusterPresentation;
import io.leasehold.proxy.presentation.MetadataService;
import io.leasehold.proxy.presentation.ProxyIdentity;
import io.leasehold.proxy.testing.FixedRoutes;
import io.leasehold.proxy.testing.ScriptedBroker;
import io.leasehold.proxy.testing.TestClients;
import io.leasehold.proxy.versions.VersionBridge;
import io.leasehold.routing.snapshot.BrokerAddress;
import io.leasehold.routing.snapshot.RoutingSnapshot;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link MetadataService} and {@link ApiVersionsService} against an in-test broker: coalescing
 * and caching, the address rewrite, topic id learning, and the version intersection.
 */
class MetadataAndVersionsTest {
    private static final Uuid ORDERS_ID = Uuid.randomUuid();

    private EventLoopGroup group;
    private ScriptedBroker broker;
    private BackendSession session;
    private OwnerLookup router;

    private static ApiMessage answer(ApiMessage request) {
        if (request instanceof MetadataRequestData) {
            MetadataResponseData.MetadataResponseBrokerCollection brokers =
                    new MetadataResponseData.MetadataResponseBrokerCollection();
            brokers.add(new MetadataResponseData.MetadataResponseBroker().setNodeId(7).setHost("10.0.0.7").setPort(19092));
            MetadataResponseData.MetadataResponseTopicCollection topics =
                    new MetadataResponseData.MetadataResponseTopicCollection();
            topics.add(new MetadataResponseData.MetadataResponseTopic().setName("orders").setTopicId(ORDERS_ID)
                    .setPartitions(List.of(new MetadataResponseData.MetadataResponsePartition().setPartitionIndex(0)
                            .setLeaderId(7).setReplicaNodes(List.of(7, 8)).setIsrNodes(List.of(7)))));
            return new MetadataResponseData().setBrokers(brokers).setControllerId(7).setClusterId("c").setTopics(topics);
        }
        ApiVersionsResponseData.ApiVersionCollection keys = new ApiVersionsResponseData.ApiVersionCollection();
        keys.add(new ApiVersionsResponseData.ApiVersion().setApiKey(ApiKeys.PRODUCE.id).setMinVersion((short) 3)
                .setMaxVersion((short) 13));
        keys.add(new ApiVersionsResponseData.ApiVersion().setApiKey(ApiKeys.METADATA.id).setMinVersion((short) 4)
                .setMaxVersion((short) 12));
        keys.add(new ApiVersionsResponseData.ApiVersion().setApiKey(ApiKeys.SASL_HANDSHAKE.id).setMinVersion((short) 0)
                .setMaxVersion((short) 1));
        return new ApiVersionsResponseData().setApiKeys(keys);
    }


    @BeforeEach
    void start() throws InterruptedException {
        group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        broker = new ScriptedBroker(group, MetadataAndVersionsTest::answer);
        session = TestClients.openSession(group);
        router = new OwnerLookup(new FixedRoutes(RoutingSnapshot.builder()
                .broker(new BrokerAddress(7, "127.0.0.1", broker.port(), null)).build()), List.of());
    }

    @AfterEach
    void stop() {
        session.close();
        broker.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void concurrentIdenticalRequestsShareOneBackendRoundTripAndSeeOnlyTheProxy() throws Exception {
        MetadataService metadata = new MetadataService(session, router,
                ClusterPresentation.singleNode(new ProxyIdentity(0, "proxy.example", 9092)), ByteBufAllocator.DEFAULT,
                Duration.ofMinutes(1), VersionBridge::none);
        List<CompletableFuture<MetadataResponseData>> answers = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            answers.add(metadata.metadata(new MetadataRequestData().setTopics(null), (short) 12));
        }
        for (CompletableFuture<MetadataResponseData> answer : answers) {
            MetadataResponseData response = answer.get(10, TimeUnit.SECONDS);
            assertThat(response.brokers()).extracting(MetadataResponseData.MetadataResponseBroker::host,
                    MetadataResponseData.MetadataResponseBroker::port)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("proxy.example", 9092));
            MetadataResponseData.MetadataResponsePartition partition =
                    response.topics().find("orders").partitions().get(0);
            assertThat(partition.leaderId()).isZero();
            assertThat(partition.replicaNodes()).containsExactly(0);
            assertThat(response.controllerId()).isZero();
        }
        assertThat(broker.requests(ApiKeys.METADATA)).isEqualTo(1);
        assertThat(metadata.resolve(Set.of(ORDERS_ID)).get(5, TimeUnit.SECONDS)).containsEntry(ORDERS_ID, "orders");
        assertThat(broker.requests(ApiKeys.METADATA)).as("id already learned").isEqualTo(1);
    }

    @Test
    void expiredAnswersAreFetchedAgain() throws Exception {
        MetadataService metadata = new MetadataService(session, router,
                ClusterPresentation.singleNode(new ProxyIdentity(0, "proxy.example", 9092)), ByteBufAllocator.DEFAULT,
                Duration.ZERO, VersionBridge::none);
        metadata.metadata(new MetadataRequestData().setTopics(null), (short) 12).get(10, TimeUnit.SECONDS);
        metadata.metadata(new MetadataRequestData().setTopics(null), (short) 12).get(10, TimeUnit.SECONDS);
        assertThat(broker.requests(ApiKeys.METADATA)).isEqualTo(2);
    }

    @Test
    void manyDistinctRequestsWithinTheMaxAgeDoNotGrowTheCacheBeyondItsCap() throws Exception {
        MetadataService metadata = new MetadataService(session, router,
                ClusterPresentation.singleNode(new ProxyIdentity(0, "proxy.example", 9092)), ByteBufAllocator.DEFAULT,
                Duration.ofMinutes(10), VersionBridge::none);
        List<CompletableFuture<MetadataResponseData>> answers = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            MetadataRequestData request = new MetadataRequestData().setTopics(List.of(
                    new MetadataRequestData.MetadataRequestTopic().setName("topic-" + i)));
            answers.add(metadata.metadata(request, (short) 12));
            assertThat(metadata.cachedAnswers()).as("cached after %d distinct requests", i + 1).isLessThanOrEqualTo(256);
        }
        for (CompletableFuture<MetadataResponseData> answer : answers) {
            answer.get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aRequestThatCannotBeWrittenFailsEveryCallerAndIsNotKept() {
        // Backends limited to v0-3 cannot be told "do not create": the request cannot be encoded.
        VersionBridge upToV3 = VersionBridge.to(Map.of(ApiKeys.METADATA,
                new VersionBridge.Range((short) 0, (short) 3)));
        MetadataService metadata = new MetadataService(session, router,
                ClusterPresentation.singleNode(new ProxyIdentity(0, "proxy.example", 9092)), ByteBufAllocator.DEFAULT,
                Duration.ofMinutes(10), () -> upToV3);
        for (int i = 0; i < 3; i++) {
            MetadataRequestData request = new MetadataRequestData().setAllowAutoTopicCreation(false).setTopics(
                    List.of(new MetadataRequestData.MetadataRequestTopic().setName("orders")));
            CompletableFuture<MetadataResponseData> answer = metadata.metadata(request, (short) 3);

            assertThat(answer).as("request %d", i).failsWithin(Duration.ofSeconds(5))
                    .withThrowableThat().withRootCauseInstanceOf(UnsupportedVersionException.class);
            assertThat(metadata.cachedAnswers()).as("a failure is not kept").isZero();
        }
        assertThat(broker.requests(ApiKeys.METADATA)).as("nothing that could create a topic was sent").isZero();
    }

    @Test
    void advertisesWhatTheProxyServesNarrowedToVersionsItCanBridgeToTheBackends() throws Exception {
        ApiVersionsService versions = new ApiVersionsService(session, router, new RoutePolicy(),
                ByteBufAllocator.DEFAULT, Duration.ofMinutes(1));
        ApiVersionsResponseData answer = versions.answer().get(10, TimeUnit.SECONDS);

        ApiVersionsResponseData.ApiVersion produce = answer.apiKeys().find(ApiKeys.PRODUCE.id);
        assertThat(produce.minVersion()).isEqualTo((short) 3);
        assertThat(produce.maxVersion()).as("v10+ would name brokers").isEqualTo(RoutePolicy.PRODUCE_MAX);
        ApiVersionsResponseData.ApiVersion metadata = answer.apiKeys().find(ApiKeys.METADATA.id);
        assertThat(metadata.minVersion()).as("v1..3 bridge to v4; v0 cannot").isEqualTo((short) 1);
        assertThat(metadata.maxVersion()).as("bridged to v12").isEqualTo(ApiKeys.METADATA.latestVersion());
        assertThat(answer.apiKeys().find(ApiKeys.FIND_COORDINATOR.id)).as("answered locally").isNotNull();
        assertThat(answer.apiKeys().find(ApiKeys.FETCH.id)).as("the backend lacks it").isNull();
        assertThat(answer.apiKeys().find(ApiKeys.SASL_HANDSHAKE.id)).as("not routed by the proxy").isNull();
        assertThat(versions.isAdvertised(ApiKeys.PRODUCE, (short) 10).get(5, TimeUnit.SECONDS)).isFalse();
        versions.answer().get(5, TimeUnit.SECONDS);
        assertThat(broker.requests(ApiKeys.API_VERSIONS)).as("remembered").isEqualTo(1);
    }
}
