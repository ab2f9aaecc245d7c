package io.leasehold.proxy.apis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.Test;

class ProduceApiTest {
    private final ProduceApi api = new ProduceApi(null);

    private static ProduceRequestData request(short acks) {
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(new TopicProduceData().setName("orders").setPartitionData(List.of(
                new PartitionProduceData().setIndex(0).setRecords(MemoryRecords.EMPTY),
                new PartitionProduceData().setIndex(1).setRecords(MemoryRecords.EMPTY))));
        return new ProduceRequestData().setAcks(acks).setTimeoutMs(1500).setTransactionalId(null).setTopicData(topics);
    }

    @Test
    void subRequestCarriesOnlyTheChosenPartitionsAndAlwaysAsksForAcknowledgement() {
        ProduceRequestData request = request((short) 0);
        TopicProduceData topic = request.topicData().iterator().next();
        LinkedHashMap<TopicProduceData, List<PartitionProduceData>> chosen = new LinkedHashMap<>();
        chosen.put(topic, List.of(topic.partitionData().get(1)));

        ProduceRequestData sub = api.subRequest(request, chosen);

        assertThat(sub.acks()).isEqualTo((short) 1);
        assertThat(sub.timeoutMs()).isEqualTo(1500);
        assertThat(sub.topicData()).hasSize(1);
        assertThat(sub.topicData().iterator().next().partitionData()).extracting(PartitionProduceData::index)
                .containsExactly(1);
        assertThat(api.forwardsOriginal(request)).as("acks=0 must be re-encoded").isFalse();
        assertThat(api.forwardsOriginal(request((short) -1))).isTrue();
    }

    @Test
    void assemblesPartitionResultsInRequestOrder() {
        ProduceRequestData request = request((short) -1);
        TopicProduceData topic = request.topicData().iterator().next();
        LinkedHashMap<TopicProduceData, List<ProduceResponseData.PartitionProduceResponse>> results =
                new LinkedHashMap<>();
        results.put(topic, List.of(
                new ProduceResponseData.PartitionProduceResponse().setIndex(0).setBaseOffset(10),
                api.errorResult(1, Errors.NOT_LEADER_OR_FOLLOWER)));

        ProduceResponseData response = api.assemble(request, results, 7);

        assertThat(response.throttleTimeMs()).isEqualTo(7);
        ProduceResponseData.TopicProduceResponse merged = response.responses().iterator().next();
        assertThat(merged.name()).isEqualTo("orders");
        assertThat(merged.partitionResponses()).extracting(ProduceResponseData.PartitionProduceResponse::index,
                ProduceResponseData.PartitionProduceResponse::errorCode)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(0, (short) 0),
                        org.assertj.core.groups.Tuple.tuple(1, Errors.NOT_LEADER_OR_FOLLOWER.code()));
        assertThat(api.retryBudget(request, java.time.Duration.ZERO)).as("80 % of the request's timeout").hasMillis(1200);
    }
}
