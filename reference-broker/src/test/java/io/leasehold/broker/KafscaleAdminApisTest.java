package io.leasehold.broker;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.routing.testing.EtcdExtension;
import io.leasehold.routing.testing.EtcdServer;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * In {@code --layout kafscale} the reference broker serves KafScale v1.6's whole API table
 * (KAFSCALE-NOTES.md), with behaviour a client can observe: partitions added, configs stored
 * and described, groups deleted, epochs answered, Fetch by topic id.
 */
@ExtendWith(EtcdExtension.class)
class KafscaleAdminApisTest {

    @Test
    void advertisesKafscalesWholeTableWhereKafkaClientsCanParseIt(EtcdServer etcd) throws Exception {
        try (BrokerCluster cluster = new BrokerCluster(etcd)) {
            ReferenceBroker broker = cluster.start(0, BrokerOptions.OwnershipMode.LEASE, BrokerOptions.Layout.KAFSCALE);
            try (WireClient wire = new WireClient(broker.port())) {
                ApiVersionsResponseData versions = wire.send(ApiKeys.API_VERSIONS, 4, new ApiVersionsRequestData()
                        .setClientSoftwareName("t").setClientSoftwareVersion("1"), ApiVersionsResponseData.class);
                // KafScale's table; where it starts below kafka-clients' oldest version, at that one.
                Map<ApiKeys, List<Integer>> expected = Map.ofEntries(
                        Map.entry(ApiKeys.API_VERSIONS, List.of(0, 4)), Map.entry(ApiKeys.METADATA, List.of(0, 12)),
                        Map.entry(ApiKeys.PRODUCE, List.of(3, 9)), Map.entry(ApiKeys.FETCH, List.of(11, 13)),
                        Map.entry(ApiKeys.FIND_COORDINATOR, List.of(3, 3)), Map.entry(ApiKeys.LIST_OFFSETS, List.of(1, 4)),
                        Map.entry(ApiKeys.JOIN_GROUP, List.of(4, 4)), Map.entry(ApiKeys.SYNC_GROUP, List.of(4, 4)),
                        Map.entry(ApiKeys.HEARTBEAT, List.of(4, 4)), Map.entry(ApiKeys.LEAVE_GROUP, List.of(4, 4)),
                        Map.entry(ApiKeys.OFFSET_COMMIT, List.of(3, 3)), Map.entry(ApiKeys.OFFSET_FETCH, List.of(5, 5)),
                        Map.entry(ApiKeys.DESCRIBE_GROUPS, List.of(5, 5)), Map.entry(ApiKeys.LIST_GROUPS, List.of(0, 5)),
                        Map.entry(ApiKeys.OFFSET_FOR_LEADER_EPOCH, List.of(3, 3)),
                        Map.entry(ApiKeys.DESCRIBE_CONFIGS, List.of(4, 4)), Map.entry(ApiKeys.ALTER_CONFIGS, List.of(1, 1)),
                        Map.entry(ApiKeys.CREATE_PARTITIONS, List.of(0, 3)), Map.entry(ApiKeys.CREATE_TOPICS, List.of(2, 2)),
                        Map.entry(ApiKeys.DELETE_TOPICS, List.of(1, 2)), Map.entry(ApiKeys.DELETE_GROUPS, List.of(0, 2)));
                expected.forEach((api, range) -> {
                    ApiVersion listed = versions.apiKeys().find(api.id);
                    assertThat(listed).as("%s listed", api).isNotNull();
                    assertThat(List.of((int) listed.minVersion(), (int) listed.maxVersion())).as("%s", api).isEqualTo(range);
                });
                assertThat(versions.apiKeys().stream().filter(v -> v.minVersion() >= 0).count())
                        .as("served APIs beyond KafScale's table").isEqualTo(expected.size());
            }
        }
    }

    @Test
    void partitionsAreAddedAndStoredTopicConfigsAreDescribed(EtcdServer etcd) throws Exception {
        try (BrokerCluster cluster = new BrokerCluster(etcd)) {
            ReferenceBroker broker = cluster.start(0, BrokerOptions.OwnershipMode.LEASE, BrokerOptions.Layout.KAFSCALE);
            cluster.createTopic("grown", 2);
            try (Admin admin = cluster.admin(); WireClient wire = new WireClient(broker.port())) {
                admin.createPartitions(Map.of("grown", NewPartitions.increaseTo(5))).all().get();
                assertThat(admin.describeTopics(List.of("grown")).allTopicNames().get().get("grown").partitions())
                        .hasSize(5);

                AlterConfigsResponseData altered = wire.send(ApiKeys.ALTER_CONFIGS, 1, new AlterConfigsRequestData()
                        .setResources(new AlterConfigsRequestData.AlterConfigsResourceCollection(List.of(
                                new AlterConfigsRequestData.AlterConfigsResource()
                                        .setResourceType(ConfigResource.Type.TOPIC.id()).setResourceName("grown")
                                        .setConfigs(new AlterConfigsRequestData.AlterableConfigCollection(List.of(
                                                new AlterConfigsRequestData.AlterableConfig()
                                                        .setName("retention.ms").setValue("3600000")).iterator())))
                                .iterator())), AlterConfigsResponseData.class);
                assertThat(altered.responses()).singleElement()
                        .satisfies(r -> assertThat(r.errorCode()).isEqualTo(Errors.NONE.code()));

                ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, "grown");
                Config described = admin.describeConfigs(List.of(topic)).all().get().get(topic);
                assertThat(described.get("retention.ms").value()).isEqualTo("3600000");
            }
        }
    }

    @Test
    void anEmptyGroupIsDeletedWithItsOffsetsAndEpochsAndTopicIdsAreAnswered(EtcdServer etcd) throws Exception {
        try (BrokerCluster cluster = new BrokerCluster(etcd)) {
            ReferenceBroker broker = cluster.start(0, BrokerOptions.OwnershipMode.LEASE, BrokerOptions.Layout.KAFSCALE);
            cluster.createTopic("read", 1);
            TopicPartition partition = new TopicPartition("read", 0);
            try (KafkaConsumer<String, String> consumer = consumer(cluster, "doomed")) {
                consumer.assign(List.of(partition));
                consumer.commitSync(Map.of(partition, new OffsetAndMetadata(0)));
            }
            try (Admin admin = cluster.admin(); WireClient wire = new WireClient(broker.port())) {
                admin.deleteConsumerGroups(List.of("doomed")).all().get();
                assertThat(admin.listConsumerGroupOffsets("doomed").partitionsToOffsetAndMetadata().get()).isEmpty();
                assertThat(admin.deleteConsumerGroups(List.of("doomed")).all())
                        .failsWithin(java.time.Duration.ofSeconds(20)).withThrowableThat()
                        .withCauseInstanceOf(GroupIdNotFoundException.class);

                OffsetForLeaderEpochResponseData epochs = wire.send(ApiKeys.OFFSET_FOR_LEADER_EPOCH, 3,
                        new OffsetForLeaderEpochRequestData().setReplicaId(-1).setTopics(
                                new OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection(List.of(
                                        new OffsetForLeaderEpochRequestData.OffsetForLeaderTopic().setTopic("read")
                                                .setPartitions(List.of(new OffsetForLeaderEpochRequestData
                                                        .OffsetForLeaderPartition().setPartition(0).setLeaderEpoch(0)
                                                        .setCurrentLeaderEpoch(-1)))).iterator())),
                        OffsetForLeaderEpochResponseData.class);
                var end = epochs.topics().iterator().next().partitions().get(0);
                assertThat(end.errorCode()).isEqualTo(Errors.NONE.code());
                assertThat(end.endOffset()).isZero();

                Uuid id = admin.describeTopics(List.of("read")).allTopicNames().get().get("read").topicId();
                FetchResponseData fetched = wire.send(ApiKeys.FETCH, 13, new FetchRequestData().setReplicaId(-1)
                        .setMaxWaitMs(0).setMaxBytes(1 << 20).setTopics(List.of(
                                new FetchRequestData.FetchTopic().setTopicId(id).setPartitions(List.of(
                                        new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(0)
                                                .setPartitionMaxBytes(1 << 20))),
                                new FetchRequestData.FetchTopic().setTopicId(Uuid.randomUuid()).setPartitions(List.of(
                                        new FetchRequestData.FetchPartition().setPartition(0))))),
                        FetchResponseData.class);
                assertThat(fetched.responses()).extracting(FetchResponseData.FetchableTopicResponse::topicId)
                        .first().isEqualTo(id);
                assertThat(fetched.responses()).flatExtracting(FetchResponseData.FetchableTopicResponse::partitions)
                        .extracting(FetchResponseData.PartitionData::errorCode)
                        .containsExactly(Errors.NONE.code(), Errors.UNKNOWN_TOPIC_ID.code());
            }
        }
    }

    private static KafkaConsumer<String, String> consumer(BrokerCluster cluster, String group) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        return new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
    }
}
