package io.leasehold.proxy.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.leasehold.proxy.admin.ProxyMetrics;
import io.leasehold.proxy.authorization.Authorizer;
import io.leasehold.proxy.backend.BackendSession;
import io.leasehold.proxy.owners.OwnerLookup;
import io.leasehold.proxy.presentation.ClusterPresentation;
import io.leasehold.proxy.presentation.ProxyIdentity;
import io.leasehold.proxy.protocol.KafkaMessages;
import io.leasehold.proxy.protocol.RequestFrame;
import io.leasehold.proxy.request.ClientContext;
import io.leasehold.proxy.testing.ScriptedBroker;
import io.leasehold.proxy.testing.SwitchingRoutes;
import io.leasehold.proxy.testing.TestClients;
import io.leasehold.routing.snapshot.BrokerAddress;
import io.leasehold.routing.snapshot.RoutingSnapshot;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.ReferenceCounted;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ApiVersionsService} and {@link RequestDispatcher} with two backends that advertise different
 * versions (one wide, one with KafScale's narrow ranges and {@code -1..-1} "unsupported" rows):
 * the proxy advertises what both support, and a connection keeps the ranges it was told.
 */
class ApiVersionsAcrossBrokersTest {
    private EventLoopGroup group;
    private ScriptedBroker wide;
    private ScriptedBroker narrow;
    private BackendSession control;
    private BackendSession clientSession;
    private final SwitchingRoutes routes = new SwitchingRoutes();

    private static ApiMessage wideBroker(ApiMessage request) {
        if (request instanceof MetadataRequestData) {
            return new MetadataResponseData().setClusterId("c");
        }
        return versions(range(ApiKeys.PRODUCE, 3, 11), range(ApiKeys.FETCH, 4, 12), range(ApiKeys.METADATA, 0, 12),
                range(ApiKeys.JOIN_GROUP, 0, 9), range(ApiKeys.OFFSET_COMMIT, 2, 8), range(ApiKeys.INIT_PRODUCER_ID, 0, 4),
                range(ApiKeys.FIND_COORDINATOR, 0, 4), range(ApiKeys.DELETE_TOPICS, 1, 6));
    }

    private static ApiMessage kafscaleBroker(ApiMessage request) {
        if (request instanceof MetadataRequestData) {
            return new MetadataResponseData().setClusterId("c");
        }
        return versions(range(ApiKeys.PRODUCE, 0, 9), range(ApiKeys.FETCH, 11, 13), range(ApiKeys.METADATA, 4, 8),
                range(ApiKeys.JOIN_GROUP, 4, 4), range(ApiKeys.OFFSET_COMMIT, 3, 3), range(ApiKeys.INIT_PRODUCER_ID, -1, -1),
                range(ApiKeys.FIND_COORDINATOR, 3, 3), range(ApiKeys.DELETE_TOPICS, 0, 2));
    }

    private static ApiVersion range(ApiKeys api, int min, int max) {
        return new ApiVersion().setApiKey(api.id).setMinVersion((short) min).setMaxVersion((short) max);
    }

    private static ApiVersionsResponseData versions(ApiVersion... ranges) {
        ApiVersionsResponseData.ApiVersionCollection keys = new ApiVersionsResponseData.ApiVersionCollection();
        for (ApiVersion range : ranges) {
            keys.add(range);
        }
        return new ApiVersionsResponseData().setApiKeys(keys);
    }

    @BeforeEach
    void start() throws InterruptedException {
        group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        wide = new ScriptedBroker(group, ApiVersionsAcrossBrokersTest::wideBroker);
        narrow = new ScriptedBroker(group, ApiVersionsAcrossBrokersTest::kafscaleBroker);
        control = TestClients.openSession(group);
        clientSession = TestClients.openSession(group);
    }

    @AfterEach
    void stop() {
        control.close();
        clientSession.close();
        wide.close();
        narrow.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void advertisesTheProxysRangeNarrowedToWhatItCanBridgeToEveryBrokerAndDropsApisABrokerMarksUnsupported()
            throws Exception {
        routes.current.set(bothBrokers());
        ApiVersionsService service = new ApiVersionsService(control, new OwnerLookup(routes, List.of()),
                new RoutePolicy(),
                ByteBufAllocator.DEFAULT, Duration.ofMinutes(1));

        ApiVersionsResponseData answer = service.answer().get(10, TimeUnit.SECONDS);

        assertThat(answer.apiKeys().find(ApiKeys.INIT_PRODUCER_ID.id)).as("-1..-1 means unsupported").isNull();
        assertThat(answer.apiKeys().find(ApiKeys.FETCH.id)).extracting(ApiVersion::minVersion, ApiVersion::maxVersion)
                .as("4..12 bridge to 11..12; 13+ names topics by id, which no common version does")
                .containsExactly((short) 4, (short) 12);
        assertThat(answer.apiKeys().find(ApiKeys.JOIN_GROUP.id)).extracting(ApiVersion::minVersion, ApiVersion::maxVersion)
                .as("v0..3 have no member-id round, so they cannot bridge to v4; v5+ carry group_instance_id")
                .containsExactly((short) 4, (short) 4);
        assertThat(answer.apiKeys().find(ApiKeys.OFFSET_COMMIT.id)).extracting(ApiVersion::minVersion, ApiVersion::maxVersion)
                .as("v6+ carry committed_leader_epoch, which v3 lacks")
                .containsExactly(ApiKeys.OFFSET_COMMIT.oldestVersion(), (short) 5);
        assertThat(answer.apiKeys().find(ApiKeys.DELETE_TOPICS.id)).extracting(ApiVersion::minVersion, ApiVersion::maxVersion)
                .as("v6 names topics in a topics[] array that v2 lacks")
                .containsExactly(ApiKeys.DELETE_TOPICS.oldestVersion(), (short) 5);
        assertThat(answer.apiKeys().find(ApiKeys.METADATA.id)).extracting(ApiVersion::minVersion, ApiVersion::maxVersion)
                .as("v0 reads an empty topic list as all topics; v10+ may name topics by id, which v8 lacks")
                .containsExactly((short) 1, (short) 9);
        assertThat(answer.apiKeys().find(ApiKeys.PRODUCE.id)).extracting(ApiVersion::minVersion, ApiVersion::maxVersion)
                .containsExactly((short) 3, (short) 9);
        assertThat(wide.requests(ApiKeys.API_VERSIONS)).isEqualTo(1);
        assertThat(narrow.requests(ApiKeys.API_VERSIONS)).isEqualTo(1);
    }

    @Test
    void aBrokerThatDoesNotAnswerIsLeftOutOfTheIntersection() throws Exception {
        narrow.close();
        routes.current.set(bothBrokers());
        ApiVersionsService service = new ApiVersionsService(control, new OwnerLookup(routes, List.of()),
                new RoutePolicy(),
                ByteBufAllocator.DEFAULT, Duration.ofMinutes(1));

        ApiVersionsResponseData answer = service.answer().get(10, TimeUnit.SECONDS);

        assertThat(answer.apiKeys().find(ApiKeys.INIT_PRODUCER_ID.id)).isNotNull();
    }

    @Test
    void aConnectionKeepsTheVersionsItNegotiatedWhenANarrowerBrokerJoins() throws Exception {
        routes.current.set(RoutingSnapshot.builder().broker(new BrokerAddress(1, "127.0.0.1", wide.port(), null)).build());
        RequestDispatcher router = new RequestDispatcher(new OwnerLookup(routes, List.of()), control,
                ByteBufAllocator.DEFAULT,
                ClusterPresentation.singleNode(new ProxyIdentity(0, "proxy.example", 9092)),
                        new ProxyMetrics(new SimpleMeterRegistry()),
                new RequestDispatcher.Settings(Duration.ZERO, Duration.ofMillis(1), Duration.ofMillis(5),
                        Duration.ofSeconds(5)), Authorizer.open(), null);
        ClientContext early = TestClients.on(clientSession);
        assertThat(apiVersions(router, early).apiKeys().find(ApiKeys.METADATA.id).minVersion()).isEqualTo((short) 0);

        // A rolling upgrade brings in a broker that supports less (no Metadata v0, which cannot be
        // bridged); the cache expires at once (max age 0) and is refreshed in the background, so a
        // later connection soon is told the narrower range.
        routes.current.set(bothBrokers());
        ClientContext late = TestClients.on(clientSession);
        await().atMost(Duration.ofSeconds(10)).until(() ->
                apiVersions(router, late).apiKeys().find(ApiKeys.METADATA.id).minVersion() == 1);

        askMetadataV0(router, early);
        assertThat(wide.requests(ApiKeys.METADATA) + narrow.requests(ApiKeys.METADATA))
                .as("promised to this connection: forwarded").isEqualTo(1);
        askMetadataV0(router, late);
        assertThat(wide.requests(ApiKeys.METADATA) + narrow.requests(ApiKeys.METADATA))
                .as("refused as UNSUPPORTED_VERSION, not forwarded").isEqualTo(1);
    }

    private RoutingSnapshot bothBrokers() {
        return RoutingSnapshot.builder().broker(new BrokerAddress(1, "127.0.0.1", wide.port(), null))
                .broker(new BrokerAddress(2, "127.0.0.1", narrow.port(), null)).build();
    }

    private static ApiVersionsResponseData apiVersions(RequestDispatcher router,
            ClientContext client) throws Exception {
        ByteBuf request = KafkaMessages.encodeRequest(ByteBufAllocator.DEFAULT, ApiKeys.API_VERSIONS, (short) 3, "client",
                new ApiVersionsRequestData().setClientSoftwareName("t").setClientSoftwareVersion("1"));
        ReferenceCounted response = router.handle(RequestFrame.parse(request), client).get(10, TimeUnit.SECONDS);
        try {
            return KafkaMessages.decodeResponse((ByteBuf) response, ApiKeys.API_VERSIONS, (short) 3);
        } finally {
            response.release();
        }
    }

    /** Sends a Metadata v0 request (all topics) and waits for whatever answer the proxy gives. */
    private static void askMetadataV0(RequestDispatcher router, ClientContext client) throws Exception {
        ByteBuf request = KafkaMessages.encodeRequest(ByteBufAllocator.DEFAULT, ApiKeys.METADATA, (short) 0, "client",
                new MetadataRequestData());
        router.handle(RequestFrame.parse(request), client).get(10, TimeUnit.SECONDS).release();
    }
}
