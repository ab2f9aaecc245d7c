package io.leasehold.broker;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/** Builds raw Produce requests for the tests that talk to one broker directly. */
final class Produces {

    private Produces() {
    }

    static MemoryRecords records(String... values) {
        SimpleRecord[] records = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++) {
            records[i] = new SimpleRecord(values[i].getBytes(StandardCharsets.UTF_8));
        }
        return MemoryRecords.withRecords(Compression.NONE, records);
    }

    /** One request with the given records per partition of one topic, acks=all. */
    static ProduceRequestData request(String topic, Map<Integer, MemoryRecords> partitions) {
        ProduceRequestData.TopicProduceData topicData = new ProduceRequestData.TopicProduceData().setName(topic);
        partitions.forEach((partition, records) -> topicData.partitionData().add(
                new ProduceRequestData.PartitionProduceData().setIndex(partition).setRecords(records)));
        ProduceRequestData request = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(10_000);
        request.topicData().add(topicData);
        return request;
    }

    static ProduceResponseData.PartitionProduceResponse produce(WireClient client, String topic, int partition,
                                                                String... values) throws IOException {
        ProduceResponseData response = client.send(ApiKeys.PRODUCE, 9,
                request(topic, Map.of(partition, records(values))), ProduceResponseData.class);
        return response.responses().iterator().next().partitionResponses().get(0);
    }
}
