package io.leasehold.proxy.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.netty.buffer.ByteBufAllocator;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.junit.jupiter.api.Test;

/** Requests naming more partitions (or Metadata topics) than the bounds allow fail to decode, naming the bound. */
class RequestBoundsTest {
    private static final RequestBounds BOUNDS = new RequestBounds(3, 2);

    private static MalformedRequestException decodeFailure(ApiKeys api, short version, ApiMessage body) throws Exception {
        RequestFrame request = RequestFrame.parse(KafkaMessages.encodeRequest(ByteBufAllocator.DEFAULT, api, version,
                "client", body), BOUNDS);
        try {
            return catchThrowableOfType(MalformedRequestException.class, request::decodeBody);
        } finally {
            request.release();
        }
    }

    private static ProduceRequestData produce(int partitions) {
        ProduceRequestData.TopicProduceData topic = new ProduceRequestData.TopicProduceData().setName("t");
        for (int i = 0; i < partitions; i++) {
            topic.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(i));
        }
        ProduceRequestData request = new ProduceRequestData().setAcks((short) 1).setTimeoutMs(1000);
        request.topicData().add(topic);
        return request;
    }

    private static MetadataRequestData metadata(int topics) {
        MetadataRequestData request = new MetadataRequestData();
        for (int i = 0; i < topics; i++) {
            request.topics().add(new MetadataRequestData.MetadataRequestTopic().setName("t" + i));
        }
        return request;
    }

    @Test
    void aProduceOverThePartitionBoundIsRefusedNamingTheBound() throws Exception {
        assertThat(decodeFailure(ApiKeys.PRODUCE, (short) 9, produce(3))).isNull();

        MalformedRequestException refused = decodeFailure(ApiKeys.PRODUCE, (short) 9, produce(4));
        assertThat(refused.reason()).isEqualTo("too_many_partitions");
        assertThat(refused.getMessage()).contains("Produce v9").contains("names 4 partitions")
                .contains("limits.maxPartitionsPerRequest (3)");
    }

    @Test
    void fetchCountsForgottenPartitionsToo() throws Exception {
        FetchRequestData fetch = new FetchRequestData().setMaxWaitMs(100).setReplicaId(-1);
        FetchRequestData.FetchTopic topic = new FetchRequestData.FetchTopic().setTopic("t");
        topic.partitions().add(new FetchRequestData.FetchPartition().setPartition(0));
        topic.partitions().add(new FetchRequestData.FetchPartition().setPartition(1));
        fetch.topics().add(topic);
        fetch.forgottenTopicsData().add(new FetchRequestData.ForgottenTopic().setTopic("u").setPartitions(
                java.util.List.of(0, 1)));

        assertThat(decodeFailure(ApiKeys.FETCH, (short) 12, fetch).reason()).isEqualTo("too_many_partitions");
    }

    @Test
    void listOffsetsAndOffsetForLeaderEpochAreBounded() throws Exception {
        ListOffsetsRequestData.ListOffsetsTopic offsets = new ListOffsetsRequestData.ListOffsetsTopic().setName("t");
        OffsetForLeaderEpochRequestData.OffsetForLeaderTopic epochs =
                new OffsetForLeaderEpochRequestData.OffsetForLeaderTopic().setTopic("t");
        for (int i = 0; i < 4; i++) {
            offsets.partitions().add(new ListOffsetsRequestData.ListOffsetsPartition().setPartitionIndex(i));
            epochs.partitions().add(new OffsetForLeaderEpochRequestData.OffsetForLeaderPartition().setPartition(i));
        }
        ListOffsetsRequestData listOffsets = new ListOffsetsRequestData().setReplicaId(-1);
        listOffsets.topics().add(offsets);
        OffsetForLeaderEpochRequestData leaderEpochs = new OffsetForLeaderEpochRequestData();
        leaderEpochs.topics().add(epochs);

        assertThat(decodeFailure(ApiKeys.LIST_OFFSETS, (short) 7, listOffsets).reason())
                .isEqualTo("too_many_partitions");
        assertThat(decodeFailure(ApiKeys.OFFSET_FOR_LEADER_EPOCH, (short) 4, leaderEpochs).reason())
                .isEqualTo("too_many_partitions");
    }

    @Test
    void aMetadataRequestOverTheTopicBoundIsRefusedWhileAllTopicsIsAllowed() throws Exception {
        assertThat(decodeFailure(ApiKeys.METADATA, (short) 12, metadata(2))).isNull();
        assertThat(decodeFailure(ApiKeys.METADATA, (short) 12, new MetadataRequestData().setTopics(null))).isNull();

        MalformedRequestException refused = decodeFailure(ApiKeys.METADATA, (short) 12, metadata(3));
        assertThat(refused.reason()).isEqualTo("too_many_topics");
        assertThat(refused.getMessage()).contains("asks for 3 topics").contains("limits.maxTopicsPerMetadataRequest (2)");
    }
}
