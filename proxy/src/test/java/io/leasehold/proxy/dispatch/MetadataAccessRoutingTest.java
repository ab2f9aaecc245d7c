package io.leasehold.proxy.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.proxy.admin.ProxyMetrics;
import io.leasehold.proxy.backend.BackendSession;
import io.leasehold.proxy.owners.OwnerLookup;
import io.leasehold.proxy.presentation.ClusterPresentation;
import io.leasehold.proxy.presentation.ProxyIdentity;
import io.leasehold.proxy.protocol.KafkaMessages;
import io.leasehold.proxy.protocol.RequestFrame;
import io.leasehold.proxy.request.ActiveRequests;
import io.leasehold.proxy.request.ClientContext;
import io.leasehold.proxy.request.ConnectionPrincipal;
import io.leasehold.proxy.request.ConnectionWork;
import io.leasehold.proxy.request.NegotiatedVersions;
import io.leasehold.proxy.request.PartitionWriteOrder;
import io.leasehold.proxy.testing.FixedRoutes;
import io.leasehold.proxy.testing.ScriptedBroker;
import io.leasehold.proxy.testing.TestClients;
import io.leasehold.proxy.testing.YamlAcls;
import io.leasehold.routing.snapshot.BrokerAddress;
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
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataRequestData.MetadataRequestTopic;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Metadata through the {@link RequestDispatcher} with ACLs, answered as Kafka answers it: alice may
 * describe the {@code orders} topics only and create nothing. The in-test broker knows
 * {@code orders-a} and {@code secret-x}, reads an empty topic list as all topics (as a broker
 * reads v0) and records whether each request let it create topics.
 */
class MetadataAccessRoutingTest {
    private static final Uuid ORDERS_ID = Uuid.randomUuid();
    private static final Uuid SECRET_ID = Uuid.randomUuid();
    private static final Map<String, Uuid> TOPICS = Map.of("orders-a", ORDERS_ID, "secret-x", SECRET_ID);
    private static final String ACLS = """
            acls:
              - {principal: "User:alice", resourceType: TOPIC, patternType: PREFIXED, name: orders,
                 operations: [DESCRIBE], permission: ALLOW}
            """;

    private final Queue<Boolean> creationAllowed = new ConcurrentLinkedQueue<>();
    private EventLoopGroup group;
    private ScriptedBroker broker;
    private BackendSession control;
    private BackendSession clientSession;
    private EmbeddedChannel aliceChannel;
    private RequestDispatcher router;

    private ApiMessage answer(ApiMessage request) {
        if (!(request instanceof MetadataRequestData metadata)) {
            ApiVersionsResponseData.ApiVersionCollection keys = new ApiVersionsResponseData.ApiVersionCollection();
            keys.add(new ApiVersionsResponseData.ApiVersion().setApiKey(ApiKeys.METADATA.id)
                    .setMinVersion((short) 0).setMaxVersion((short) 12));
            return new ApiVersionsResponseData().setApiKeys(keys);
        }
        creationAllowed.add(metadata.allowAutoTopicCreation());
        MetadataResponseData response = new MetadataResponseData().setClusterId("c").setControllerId(7);
        response.brokers().add(new MetadataResponseData.MetadataResponseBroker().setNodeId(7).setHost("10.0.0.7")
                .setPort(19092));
        if (metadata.topics() == null || metadata.topics().isEmpty()) {
            TOPICS.forEach((name, id) -> response.topics().add(known(name, id)));
            return response;
        }
        for (MetadataRequestTopic asked : metadata.topics()) {
            String name = asked.name() != null ? asked.name() : TOPICS.entrySet().stream()
                    .filter(e -> e.getValue().equals(asked.topicId())).map(Map.Entry::getKey).findFirst().orElse(null);
            if (name == null) {
                response.topics().add(new MetadataResponseTopic().setTopicId(asked.topicId()).setName(null)
                        .setErrorCode(Errors.UNKNOWN_TOPIC_ID.code()));
            } else if (TOPICS.containsKey(name)) {
                response.topics().add(known(name, TOPICS.get(name)));
            } else {
                response.topics().add(new MetadataResponseTopic().setName(name)
                        .setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()));
            }
        }
        return response;
    }

    private static MetadataResponseTopic known(String name, Uuid id) {
        return new MetadataResponseTopic().setName(name).setTopicId(id).setPartitions(List.of(
                new MetadataResponseData.MetadataResponsePartition().setPartitionIndex(0).setLeaderId(7)
                        .setReplicaNodes(List.of(7)).setIsrNodes(List.of(7))));
    }

    @BeforeEach
    void start() throws InterruptedException {
        group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        broker = new ScriptedBroker(group, this::answer);
        control = TestClients.openSession(group);
        clientSession = TestClients.openSession(group);
        aliceChannel = new EmbeddedChannel();
        ConnectionPrincipal.set(aliceChannel, ConnectionPrincipal.user("alice"));
        OwnerLookup owners = new OwnerLookup(new FixedRoutes(RoutingSnapshot.builder()
                .broker(new BrokerAddress(7, "127.0.0.1", broker.port(), null)).build()), List.of());
        router = new RequestDispatcher(owners, control, ByteBufAllocator.DEFAULT,
                ClusterPresentation.singleNode(new ProxyIdentity(0, "proxy.example", 9092)),
                new ProxyMetrics(new SimpleMeterRegistry()),
                new RequestDispatcher.Settings(Duration.ofMinutes(1), Duration.ofMillis(1), Duration.ofMillis(5),
                        Duration.ofSeconds(5)),
                YamlAcls.authorizer(ACLS, new SimpleMeterRegistry()), null);
    }

    @AfterEach
    void stop() {
        aliceChannel.finishAndReleaseAll();
        control.close();
        clientSession.close();
        broker.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private ClientContext alice() {
        return new ClientContext(clientSession, new PartitionWriteOrder(),
                new ConnectionWork(new ActiveRequests(), () -> { }), new NegotiatedVersions(), ByteBufAllocator.DEFAULT,
                "alice", aliceChannel);
    }

    private RequestFrame metadataRequest(short version, MetadataRequestData body) throws Exception {
        return RequestFrame.parse(KafkaMessages.encodeRequest(ByteBufAllocator.DEFAULT, ApiKeys.METADATA, version,
                "client", body));
    }

    /** Sends {@code body} in {@code version} as alice and decodes the answer; the request frame must be released. */
    private MetadataResponseData ask(short version, MetadataRequestData body) throws Exception {
        RequestFrame request = metadataRequest(version, body);
        ByteBuf answer = (ByteBuf) router.handle(request, alice()).get(10, TimeUnit.SECONDS);
        try {
            assertThat(request.refCnt()).as("request frame released").isZero();
            return KafkaMessages.decodeResponse(answer, ApiKeys.METADATA, version);
        } finally {
            answer.release();
        }
    }

    private static MetadataRequestData named(String... names) {
        List<MetadataRequestTopic> topics = new ArrayList<>();
        for (String name : names) {
            topics.add(new MetadataRequestTopic().setName(name));
        }
        return new MetadataRequestData().setTopics(topics);
    }

    @Test
    void allTopicsInEveryVersionShowOnlyDescribableTopicsAndNameNoOther() throws Exception {
        for (short version = 0; version <= 12; version++) {
            MetadataRequestData all = new MetadataRequestData().setTopics(version == 0 ? List.of() : null)
                    .setAllowAutoTopicCreation(version < 4);
            assertThat(ask(version, all).topics()).as("v%d all topics", version)
                    .extracting(MetadataResponseTopic::name).containsExactly("orders-a");
        }
    }

    @Test
    void aTopicAskedByIdThatMayNotBeDescribedIsRefusedWithItsIdAndWithoutItsName() throws Exception {
        Uuid unknown = Uuid.randomUuid();
        MetadataRequestData byId = new MetadataRequestData().setAllowAutoTopicCreation(false).setTopics(List.of(
                new MetadataRequestTopic().setTopicId(SECRET_ID).setName(null),
                new MetadataRequestTopic().setTopicId(ORDERS_ID).setName(null),
                new MetadataRequestTopic().setTopicId(unknown).setName(null)));

        List<MetadataResponseTopic> topics = new ArrayList<>(ask((short) 12, byId).topics());

        assertThat(topics).extracting(MetadataResponseTopic::topicId, MetadataResponseTopic::name,
                MetadataResponseTopic::errorCode).containsExactlyInAnyOrder(
                org.assertj.core.groups.Tuple.tuple(SECRET_ID, null, Errors.TOPIC_AUTHORIZATION_FAILED.code()),
                org.assertj.core.groups.Tuple.tuple(ORDERS_ID, "orders-a", Errors.NONE.code()),
                org.assertj.core.groups.Tuple.tuple(unknown, null, Errors.UNKNOWN_TOPIC_ID.code()));
    }

    @Test
    void aTopicNamedThatMayNotBeDescribedIsRefusedWithItsNameAndWithoutItsId() throws Exception {
        MetadataResponseTopic secret = ask((short) 12, named("secret-x").setAllowAutoTopicCreation(false))
                .topics().find("secret-x");

        assertThat(secret.errorCode()).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code());
        assertThat(secret.topicId()).isEqualTo(Uuid.ZERO_UUID);
        assertThat(secret.partitions()).isEmpty();
    }

    @Test
    void oldVersionsFromAPrincipalWithoutCreateAreAllAnsweredAndCreateNothing() throws Exception {
        List<CompletableFuture<?>> answers = new ArrayList<>();
        List<RequestFrame> requests = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            RequestFrame request = metadataRequest((short) 3, named("orders-new", "orders-a"));
            requests.add(request);
            answers.add(router.handle(request, alice()).thenApply(answer -> {
                try {
                    return KafkaMessages.decodeResponse((ByteBuf) answer, ApiKeys.METADATA, (short) 3);
                } finally {
                    answer.release();
                }
            }));
        }

        for (CompletableFuture<?> answer : answers) {
            MetadataResponseData response = (MetadataResponseData) answer.get(10, TimeUnit.SECONDS);
            assertThat(response.topics().find("orders-new").errorCode()).as("may describe, may not create")
                    .isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code());
            assertThat(response.topics().find("orders-a").errorCode()).isEqualTo(Errors.NONE.code());
        }
        assertThat(requests).allSatisfy(r -> assertThat(r.refCnt()).as("request frame released").isZero());
        assertThat(creationAllowed).as("the broker was never allowed to create").isNotEmpty().containsOnly(false);
    }
}
