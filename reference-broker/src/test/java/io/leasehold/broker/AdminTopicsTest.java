package io.leasehold.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.routing.testing.EtcdExtension;
import io.leasehold.routing.testing.EtcdServer;
import java.util.List;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(EtcdExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdminTopicsTest {

    private BrokerCluster cluster;
    private ReferenceBroker broker;

    @BeforeAll
    void startBrokers(EtcdServer etcd) throws Exception {
        cluster = new BrokerCluster(etcd);
        broker = cluster.start(1);
        cluster.start(2);
    }

    @AfterAll
    void stopBrokers() {
        cluster.close();
    }

    @Test
    void createdTopicIsDescribedWithItsPartitionsOnEveryBroker() throws Exception {
        try (Admin admin = cluster.admin()) {
            admin.createTopics(List.of(new NewTopic("described", 4, (short) 1))).all().get();
            assertThat(admin.listTopics().names().get()).contains("described");
            TopicDescription description = admin.describeTopics(List.of("described")).allTopicNames().get().get("described");
            assertThat(description.partitions()).hasSize(4);
            assertThat(description.topicId()).isNotNull();
            assertThat(description.partitions()).allSatisfy(p -> assertThat(p.leader().id()).isIn(1, 2));
        }
    }

    @Test
    void creatingAnExistingTopicOrABadOneFailsWithTheMatchingError() throws Exception {
        try (Admin admin = cluster.admin()) {
            admin.createTopics(List.of(new NewTopic("twice", 1, (short) 1))).all().get();
            assertThatThrownBy(() -> admin.createTopics(List.of(new NewTopic("twice", 1, (short) 1))).all().get())
                    .hasCauseInstanceOf(TopicExistsException.class);
            assertThatThrownBy(() -> admin.createTopics(List.of(new NewTopic("bad/name", 1, (short) 1))).all().get())
                    .hasCauseInstanceOf(InvalidTopicException.class);
            assertThatThrownBy(() -> admin.createTopics(List.of(new NewTopic("no-partitions", 0, (short) 1))).all().get())
                    .hasCauseInstanceOf(InvalidPartitionsException.class);
        }
    }

    @Test
    void deletedTopicDisappearsAndItsNameCanBeReused() throws Exception {
        try (Admin admin = cluster.admin()) {
            admin.createTopics(List.of(new NewTopic("doomed", 2, (short) 1))).all().get();
            var firstId = admin.describeTopics(List.of("doomed")).allTopicNames().get().get("doomed").topicId();
            admin.deleteTopics(List.of("doomed")).all().get();
            assertThat(admin.listTopics().names().get()).doesNotContain("doomed");
            assertThatThrownBy(() -> admin.deleteTopics(List.of("doomed")).all().get())
                    .hasCauseInstanceOf(UnknownTopicOrPartitionException.class);

            admin.createTopics(List.of(new NewTopic("doomed", 1, (short) 1))).all().get();
            TopicDescription again = admin.describeTopics(List.of("doomed")).allTopicNames().get().get("doomed");
            assertThat(again.partitions()).hasSize(1);
            assertThat(again.topicId()).isNotEqualTo(firstId);
        }
    }

    @Test
    void metadataCreatesAnUnknownTopicOnlyWhenTheClientAllowsIt() throws Exception {
        try (WireClient client = new WireClient(broker.port())) {
            MetadataResponseData refused = client.send(ApiKeys.METADATA, 12, new MetadataRequestData()
                    .setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName("not-auto")))
                    .setAllowAutoTopicCreation(false), MetadataResponseData.class);
            assertThat(refused.topics().find("not-auto").errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());

            MetadataResponseData created = client.send(ApiKeys.METADATA, 12, new MetadataRequestData()
                    .setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName("auto")))
                    .setAllowAutoTopicCreation(true), MetadataResponseData.class);
            MetadataResponseData.MetadataResponseTopic topic = created.topics().find("auto");
            assertThat(topic.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(topic.partitions()).hasSize(1);
        }
        try (Admin admin = cluster.admin()) {
            assertThat(admin.listTopics().names().get()).contains("auto").doesNotContain("not-auto");
        }
    }

    @Test
    void describeClusterListsEveryLiveBroker() throws Exception {
        try (Admin admin = cluster.admin()) {
            DescribeClusterResult result = admin.describeCluster();
            assertThat(result.nodes().get()).extracting(Node::id).containsExactlyInAnyOrder(1, 2);
            assertThat(result.clusterId().get()).isEqualTo(ReferenceBroker.CLUSTER_ID);
            assertThat(result.controller().get().id()).isEqualTo(1);
        }
    }
}
