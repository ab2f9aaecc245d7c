package io.leasehold.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.leasehold.routing.testing.EtcdExtension;
import io.leasehold.routing.testing.EtcdServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(EtcdExtension.class)
class OwnershipTest {

    private BrokerCluster cluster;

    @AfterEach
    void stopBrokers() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void partitionOwnedByAnotherBrokerIsRejectedAloneWhileOtherPartitionsProceed(EtcdServer etcd) throws Exception {
        cluster = new BrokerCluster(etcd);
        ReferenceBroker a = cluster.start(1);
        ReferenceBroker b = cluster.start(2);
        cluster.createTopic("owned", 2);
        try (WireClient toA = new WireClient(a.port()); WireClient toB = new WireClient(b.port())) {
            assertThat(Produces.produce(toA, "owned", 0, "a0", "a1").errorCode()).isEqualTo(Errors.NONE.code());

            Map<Integer, org.apache.kafka.common.record.internal.MemoryRecords> both = new LinkedHashMap<>();
            both.put(0, Produces.records("b0"));
            both.put(1, Produces.records("b1"));
            ProduceResponseData response = toB.send(ApiKeys.PRODUCE, 9, Produces.request("owned", both),
                    ProduceResponseData.class);
            List<PartitionProduceResponse> partitions = response.responses().iterator().next().partitionResponses();
            assertThat(partitions).filteredOn(p -> p.index() == 0).singleElement()
                    .satisfies(p -> assertThat(p.errorCode()).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER.code()));
            assertThat(partitions).filteredOn(p -> p.index() == 1).singleElement()
                    .satisfies(p -> {
                        assertThat(p.errorCode()).isEqualTo(Errors.NONE.code());
                        assertThat(p.baseOffset()).isZero();
                    });

            MetadataResponseData metadata = toB.send(ApiKeys.METADATA, 12,
                    new MetadataRequestData().setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName("owned"))),
                    MetadataResponseData.class);
            assertThat(metadata.brokers()).hasSize(2);
            var leaders = metadata.topics().find("owned").partitions();
            assertThat(leaders).filteredOn(p -> p.partitionIndex() == 0).singleElement()
                    .satisfies(p -> assertThat(p.leaderId()).isEqualTo(1));
            assertThat(leaders).filteredOn(p -> p.partitionIndex() == 1).singleElement()
                    .satisfies(p -> assertThat(p.leaderId()).isEqualTo(2));
        }
    }

    @Test
    void lostClaimStopsTheOldOwnerAndTheNewOwnerContinuesTheOffsets(EtcdServer etcd) throws Exception {
        cluster = new BrokerCluster(etcd);
        ReferenceBroker a = cluster.start(1);
        ReferenceBroker b = cluster.start(2);
        cluster.createTopic("handover", 1);
        String leaseKey = cluster.prefix() + "/partition-leases/handover/0";
        try (WireClient toA = new WireClient(a.port()); WireClient toB = new WireClient(b.port());
             Client client = Client.builder().endpoints(etcd.endpoint()).build()) {
            assertThat(Produces.produce(toA, "handover", 0, "a0", "a1", "a2").baseOffset()).isZero();
            assertThat(Produces.produce(toB, "handover", 0, "b0").errorCode())
                    .isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER.code());

            // The lease key disappears, as when broker 1's lease expires; broker 2 takes over.
            client.getKVClient().delete(bytes(leaseKey)).get();
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                PartitionProduceResponse taken = Produces.produce(toB, "handover", 0, "b1", "b2");
                assertThat(taken.errorCode()).isEqualTo(Errors.NONE.code());
                assertThat(taken.baseOffset()).isEqualTo(3);
            });
            assertThat(Produces.produce(toA, "handover", 0, "a3").errorCode())
                    .isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER.code());
            assertThat(Produces.produce(toB, "handover", 0, "b3").baseOffset()).isEqualTo(5);
        }
        List<ConsumerRecord<String, String>> records =
                ProduceConsumeTest.readAll(cluster.consumer(null), "handover", 1, 6);
        assertThat(records).extracting(ConsumerRecord::offset).containsExactly(0L, 1L, 2L, 3L, 4L, 5L);
        assertThat(records).extracting(ConsumerRecord::value).containsExactly("a0", "a1", "a2", "b1", "b2", "b3");
    }

    @Test
    void brokerThatCannotOpenAWonPartitionGivesTheKeyUpBeforeAnsweringNotLeader(EtcdServer etcd) throws Exception {
        cluster = new BrokerCluster(etcd);
        ReferenceBroker a = cluster.start(1);
        cluster.createTopic("unopenable", 1);
        String leaseKey = cluster.prefix() + "/partition-leases/unopenable/0";
        try (WireClient toA = new WireClient(a.port());
             Client client = Client.builder().endpoints(etcd.endpoint()).build()) {
            // Without its next offset the partition cannot be opened after the claim is won.
            client.getKVClient().delete(bytes(cluster.prefix() + "/topics/unopenable/partitions/0/next_offset")).get();

            assertThat(Produces.produce(toA, "unopenable", 0, "x").errorCode())
                    .isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER.code());

            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
                    client.getKVClient().get(bytes(leaseKey)).get().getKvs())
                    .as("a broker answering NOT_LEADER_OR_FOLLOWER holds no key for the partition").isEmpty());
        }
    }

    @Test
    void unfencedBrokersHandOutTheSameOffsetsTwice(EtcdServer etcd) throws Exception {
        cluster = new BrokerCluster(etcd);
        ReferenceBroker a = cluster.start(1, BrokerOptions.OwnershipMode.NONE);
        ReferenceBroker b = cluster.start(2, BrokerOptions.OwnershipMode.NONE);
        cluster.createTopic("legacy", 1);
        try (WireClient toA = new WireClient(a.port()); WireClient toB = new WireClient(b.port())) {
            // Each broker reads next_offset once, when it first writes the partition, then counts alone.
            assertThat(Produces.produce(toA, "legacy", 0, "a0").baseOffset()).isZero();
            assertThat(Produces.produce(toB, "legacy", 0, "b0").baseOffset()).isEqualTo(1);
            assertThat(Produces.produce(toA, "legacy", 0, "a1").baseOffset()).isEqualTo(1);
        }
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }
}
