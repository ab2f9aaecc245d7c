package io.leasehold.proxy.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.proxy.admin.ProxyMetrics;
import io.leasehold.proxy.authorization.Authorizer;
import io.leasehold.proxy.backend.BackendConnector;
import io.leasehold.proxy.backend.BackendListener;
import io.leasehold.proxy.backend.BackendSession;
import io.leasehold.proxy.owners.OwnerLookup;
import io.leasehold.proxy.presentation.ClusterPresentation;
import io.leasehold.proxy.presentation.ProxyIdentity;
import io.leasehold.proxy.protocol.KafkaMessages;
import io.leasehold.proxy.protocol.RequestFrame;
import io.leasehold.proxy.testing.FixedRoutes;
import io.leasehold.proxy.testing.ScriptedBroker;
import io.leasehold.proxy.testing.TestClients;
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
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link RequestDispatcher} for control requests, against in-test brokers that grant everything they
 * are asked: what the proxy refuses itself never reaches them, multi-group requests are split
 * by group owner, and idempotent reads skip a broker that does not answer.
 */
class ControlRequestsTest {
    private EventLoopGroup group;
    private final Map<Integer, List<String>> describedGroups = new ConcurrentHashMap<>();
    private ScriptedBroker broker1;
    private ScriptedBroker broker2;
    private BackendSession control;
    private BackendSession clientSession;

    /** Advertises every API in kafka-clients' full range and grants whatever it is asked. */
    private static ApiMessage grantsEverything(int brokerId, ApiMessage request, Map<Integer, List<String>> described) {
        if (request instanceof ConsumerGroupDescribeRequestData describe) {
            described.computeIfAbsent(brokerId, id -> new CopyOnWriteArrayList<>()).addAll(describe.groupIds());
            ConsumerGroupDescribeResponseData response = new ConsumerGroupDescribeResponseData();
            describe.groupIds().forEach(g -> response.groups().add(new ConsumerGroupDescribeResponseData.DescribedGroup()
                    .setGroupId(g).setGroupState("Stable").setAssignorName("broker-" + brokerId)));
            return response;
        }
        if (request instanceof InitProducerIdRequestData) {
            return new InitProducerIdResponseData().setProducerId(42).setProducerEpoch((short) 0);
        }
        if (request instanceof DescribeConfigsRequestData describe) {
            DescribeConfigsResponseData response = new DescribeConfigsResponseData();
            describe.resources().forEach(r -> response.results().add(new DescribeConfigsResponseData.DescribeConfigsResult()
                    .setResourceType(r.resourceType()).setResourceName(r.resourceName())));
            return response;
        }
        if (request instanceof IncrementalAlterConfigsRequestData) {
            return new IncrementalAlterConfigsResponseData();
        }
        if (request instanceof MetadataRequestData) {
            return new MetadataResponseData().setClusterId("c").setControllerId(brokerId);
        }
        ApiVersionsResponseData.ApiVersionCollection keys = new ApiVersionsResponseData.ApiVersionCollection();
        for (ApiKeys api : ApiKeys.clientApis()) {
            keys.add(new ApiVersionsResponseData.ApiVersion().setApiKey(api.id).setMinVersion(api.oldestVersion())
                    .setMaxVersion(api.latestVersion()));
        }
        return new ApiVersionsResponseData().setApiKeys(keys);
    }

    @BeforeEach
    void start() throws InterruptedException {
        group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        broker1 = new ScriptedBroker(group, request -> grantsEverything(1, request, describedGroups));
        broker2 = new ScriptedBroker(group, request -> grantsEverything(2, request, describedGroups));
        BackendConnector connector = BackendConnector.builder(new BackendConnector.Settings(Duration.ofSeconds(2),
                Duration.ofSeconds(5), Duration.ofMillis(300), 1 << 20), new BackendListener() { }).build();
        control = connector.openSession(group.next(), new BackendListener() { });
        clientSession = connector.openSession(group.next(), new BackendListener() { });
    }

    @AfterEach
    void stop() {
        control.close();
        clientSession.close();
        broker1.close();
        broker2.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private RequestDispatcher router(RoutingSnapshot snapshot) {
        return new RequestDispatcher(new OwnerLookup(new FixedRoutes(snapshot), List.of()), control,
                ByteBufAllocator.DEFAULT, ClusterPresentation.singleNode(new ProxyIdentity(0, "proxy.example", 9092)),
                new ProxyMetrics(new SimpleMeterRegistry()), new RequestDispatcher.Settings(Duration.ofMinutes(1),
                Duration.ofMillis(1), Duration.ofMillis(5), Duration.ofSeconds(5)), Authorizer.open(), null);
    }

    private RoutingSnapshot bothBrokers() {
        return RoutingSnapshot.builder().broker(new BrokerAddress(1, "127.0.0.1", broker1.port(), null))
                .broker(new BrokerAddress(2, "127.0.0.1", broker2.port(), null)).build();
    }

    private <T extends ApiMessage> T exchange(RequestDispatcher router, ApiKeys api, short version, ApiMessage body)
            throws Exception {
        ByteBuf request = KafkaMessages.encodeRequest(ByteBufAllocator.DEFAULT, api, version, "client", body);
        ReferenceCounted response = router.handle(RequestFrame.parse(request), TestClients.on(clientSession))
                .get(10, TimeUnit.SECONDS);
        try {
            return KafkaMessages.decodeResponse((ByteBuf) response, api, version);
        } finally {
            response.release();
        }
    }

    private int requestsReceived(ApiKeys api) {
        return broker1.requests(api) + broker2.requests(api);
    }

    @Test
    void consumerGroupDescribeAsksEachGroupsOwnerAndMergesInRequestOrder() throws Exception {
        RoutingSnapshot snapshot = bothBrokers().toBuilder().group("payments", new Ownership(2, 5))
                .group("orders", new Ownership(1, 6)).build();

        ConsumerGroupDescribeResponseData answer = exchange(router(snapshot), ApiKeys.CONSUMER_GROUP_DESCRIBE,
                (short) 0, new ConsumerGroupDescribeRequestData().setGroupIds(List.of("payments", "orders")));

        assertThat(answer.groups()).extracting(ConsumerGroupDescribeResponseData.DescribedGroup::groupId)
                .containsExactly("payments", "orders");
        assertThat(answer.groups()).extracting(ConsumerGroupDescribeResponseData.DescribedGroup::assignorName)
                .containsExactly("broker-2", "broker-1");
        assertThat(describedGroups).containsEntry(1, List.of("orders")).containsEntry(2, List.of("payments"));
    }

    @Test
    void consumerGroupDescribeOfNoGroupsIsAnsweredEmpty() throws Exception {
        ConsumerGroupDescribeResponseData answer = exchange(router(bothBrokers()), ApiKeys.CONSUMER_GROUP_DESCRIBE,
                (short) 0, new ConsumerGroupDescribeRequestData().setGroupIds(List.of()));

        assertThat(answer.groups()).isEmpty();
        assertThat(requestsReceived(ApiKeys.CONSUMER_GROUP_DESCRIBE)).isZero();
    }

    @Test
    void describeConfigsOfTheProxysBrokerIdIsRefusedWithoutAskingABroker() throws Exception {
        RequestDispatcher router = router(bothBrokers());

        DescribeConfigsResponseData refused = exchange(router, ApiKeys.DESCRIBE_CONFIGS, (short) 4,
                new DescribeConfigsRequestData().setResources(List.of(new DescribeConfigsRequestData.DescribeConfigsResource()
                        .setResourceType(ConfigResource.Type.BROKER.id()).setResourceName("0"))));
        DescribeConfigsResponseData topic = exchange(router, ApiKeys.DESCRIBE_CONFIGS, (short) 4,
                new DescribeConfigsRequestData().setResources(List.of(new DescribeConfigsRequestData.DescribeConfigsResource()
                        .setResourceType(ConfigResource.Type.TOPIC.id()).setResourceName("orders"))));

        assertThat(refused.results()).singleElement().satisfies(r -> {
            assertThat(r.errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());
            assertThat(r.errorMessage()).contains("broker-scoped configs are not available through the Leasehold proxy");
            assertThat(r.resourceName()).isEqualTo("0");
        });
        assertThat(topic.results()).singleElement().satisfies(r -> assertThat(r.errorCode()).isZero());
        assertThat(requestsReceived(ApiKeys.DESCRIBE_CONFIGS)).as("DescribeConfigs forwarded (the topic only)")
                .isEqualTo(1);
    }

    @Test
    void alteringOneBrokersConfigIsRefusedButClusterDefaultsAreForwarded() throws Exception {
        RequestDispatcher router = router(bothBrokers());
        IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection one =
                new IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection();
        one.add(new IncrementalAlterConfigsRequestData.AlterConfigsResource()
                .setResourceType(ConfigResource.Type.BROKER_LOGGER.id()).setResourceName("0"));
        IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection defaults =
                new IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection();
        defaults.add(new IncrementalAlterConfigsRequestData.AlterConfigsResource()
                .setResourceType(ConfigResource.Type.BROKER.id()).setResourceName(""));

        IncrementalAlterConfigsResponseData refused = exchange(router, ApiKeys.INCREMENTAL_ALTER_CONFIGS, (short) 1,
                new IncrementalAlterConfigsRequestData().setResources(one));
        exchange(router, ApiKeys.INCREMENTAL_ALTER_CONFIGS, (short) 1,
                new IncrementalAlterConfigsRequestData().setResources(defaults));

        assertThat(refused.responses()).singleElement()
                .satisfies(r -> assertThat(r.errorCode()).isEqualTo(Errors.INVALID_REQUEST.code()));
        assertThat(requestsReceived(ApiKeys.INCREMENTAL_ALTER_CONFIGS)).as("forwarded (the cluster default only)")
                .isEqualTo(1);
    }

    @Test
    void transactionalIdsAreRefusedBeforeAnyBrokerIsAsked() throws Exception {
        RequestDispatcher router = router(bothBrokers());

        InitProducerIdResponseData transactional = exchange(router, ApiKeys.INIT_PRODUCER_ID, (short) 4,
                new InitProducerIdRequestData().setTransactionalId("payments-tx").setTransactionTimeoutMs(60_000));
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(new ProduceRequestData.TopicProduceData().setName("orders")
                .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData().setIndex(0)
                        .setRecords(org.apache.kafka.common.record.internal.MemoryRecords.EMPTY))));
        ProduceResponseData produce = exchange(router, ApiKeys.PRODUCE, (short) 9, new ProduceRequestData()
                .setTransactionalId("payments-tx").setAcks((short) -1).setTimeoutMs(1000).setTopicData(topics));
        AddPartitionsToTxnResponseData addPartitions = exchange(router, ApiKeys.ADD_PARTITIONS_TO_TXN, (short) 4,
                new AddPartitionsToTxnRequestData());
        InitProducerIdResponseData idempotent = exchange(router, ApiKeys.INIT_PRODUCER_ID, (short) 4,
                new InitProducerIdRequestData().setTransactionalId(null).setTransactionTimeoutMs(-1));

        assertThat(transactional.errorCode()).isEqualTo(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code());
        assertThat(produce.responses()).singleElement().satisfies(t -> assertThat(t.partitionResponses())
                .singleElement().satisfies(p -> assertThat(p.errorCode())
                        .isEqualTo(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code())));
        assertThat(addPartitions.errorCode()).as("transaction APIs are not advertised")
                .isEqualTo(Errors.UNSUPPORTED_VERSION.code());
        assertThat(idempotent.errorCode()).isZero();
        assertThat(idempotent.producerId()).isEqualTo(42);
        assertThat(requestsReceived(ApiKeys.INIT_PRODUCER_ID)).as("InitProducerId forwarded (the idempotent one)")
                .isEqualTo(1);
        assertThat(requestsReceived(ApiKeys.PRODUCE)).isZero();
        assertThat(requestsReceived(ApiKeys.ADD_PARTITIONS_TO_TXN)).isZero();
    }

    @Test
    void metadataSkipsABrokerThatAcceptsConnectionsButNeverAnswers() throws Exception {
        try (ServerSocket hung = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            // Never accepted or read: the kernel completes the handshake and buffers the request,
            // as for a SIGSTOPped broker. It sorts first, so it is asked first.
            RoutingSnapshot snapshot = RoutingSnapshot.builder()
                    .broker(new BrokerAddress(0, "127.0.0.1", hung.getLocalPort(), null))
                    .broker(new BrokerAddress(2, "127.0.0.1", broker2.port(), null)).build();
            RequestDispatcher router = router(snapshot);
            exchange(router, ApiKeys.API_VERSIONS, (short) 3,
                    new org.apache.kafka.common.message.ApiVersionsRequestData());

            MetadataResponseData answer = exchange(router, ApiKeys.METADATA, (short) 12,
                    new MetadataRequestData().setTopics(null));

            assertThat(answer.clusterId()).isEqualTo("c");
            assertThat(broker2.requests(ApiKeys.METADATA)).isEqualTo(1);
        }
    }
}
