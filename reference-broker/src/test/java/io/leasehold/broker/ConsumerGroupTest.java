package io.leasehold.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.leasehold.routing.testing.EtcdExtension;
import io.leasehold.routing.testing.EtcdServer;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(EtcdExtension.class)
class ConsumerGroupTest {

    private BrokerCluster cluster;
    private ReferenceBroker first;
    private ReferenceBroker second;

    @BeforeEach
    void startBrokers(EtcdServer etcd) throws Exception {
        cluster = new BrokerCluster(etcd);
        first = cluster.start(1);
        second = cluster.start(2);
    }

    @AfterEach
    void stopBrokers() {
        cluster.close();
    }

    @Test
    void twoMembersSplitThePartitionsAndTheSurvivorTakesAllWhenOneLeaves() throws Exception {
        cluster.createTopic("shared", 4);
        try (KafkaConsumer<String, String> one = member(); KafkaConsumer<String, String> two = member();
             Admin admin = cluster.admin()) {
            one.subscribe(List.of("shared"));
            two.subscribe(List.of("shared"));
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                one.poll(Duration.ofMillis(50));
                two.poll(Duration.ofMillis(50));
                assertThat(one.assignment()).hasSize(2);
                assertThat(two.assignment()).hasSize(2);
            });
            Set<TopicPartition> all = new HashSet<>(one.assignment());
            all.addAll(two.assignment());
            assertThat(all).hasSize(4);

            ConsumerGroupDescription described = admin.describeConsumerGroups(List.of("splitters"))
                    .describedGroups().get("splitters").get();
            assertThat(described.groupState()).isEqualTo(GroupState.STABLE);
            assertThat(described.members()).hasSize(2);
            assertThat(admin.listGroups().all().get()).extracting(GroupListing::groupId).contains("splitters");

            two.close();
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                one.poll(Duration.ofMillis(50));
                assertThat(one.assignment()).hasSize(4);
            });
        }
    }

    @Test
    void onlyTheBrokerHoldingTheGroupLeaseCoordinatesIt() throws Exception {
        try (WireClient toFirst = new WireClient(first.port()); WireClient toSecond = new WireClient(second.port())) {
            FindCoordinatorResponseData found = toFirst.send(ApiKeys.FIND_COORDINATOR, 3,
                    new FindCoordinatorRequestData().setKey("leased-group").setKeyType((byte) 0),
                    FindCoordinatorResponseData.class);
            assertThat(found.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(found.nodeId()).isEqualTo(1);

            FindCoordinatorResponseData fromSecond = toSecond.send(ApiKeys.FIND_COORDINATOR, 4,
                    new FindCoordinatorRequestData().setKeyType((byte) 0).setCoordinatorKeys(List.of("leased-group")),
                    FindCoordinatorResponseData.class);
            assertThat(fromSecond.coordinators()).singleElement().satisfies(coordinator -> {
                assertThat(coordinator.nodeId()).isEqualTo(1);
                assertThat(coordinator.port()).isEqualTo(first.port());
            });

            JoinGroupRequestData join = new JoinGroupRequestData().setGroupId("leased-group").setSessionTimeoutMs(10_000)
                    .setRebalanceTimeoutMs(10_000).setMemberId("").setProtocolType("consumer");
            join.protocols().add(new JoinGroupRequestData.JoinGroupRequestProtocol().setName("range").setMetadata(new byte[0]));
            JoinGroupResponseData refused = toSecond.send(ApiKeys.JOIN_GROUP, 7, join, JoinGroupResponseData.class);
            assertThat(refused.errorCode()).isEqualTo(Errors.NOT_COORDINATOR.code());
            JoinGroupResponseData accepted = toFirst.send(ApiKeys.JOIN_GROUP, 7, join.duplicate(), JoinGroupResponseData.class);
            assertThat(accepted.errorCode()).isEqualTo(Errors.MEMBER_ID_REQUIRED.code());
            assertThat(accepted.memberId()).startsWith("wire-test-");
        }
    }

    private KafkaConsumer<String, String> member() {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "splitters");
        props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 300);
        props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 6_000);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        return new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
    }
}
