package io.leasehold.proxy.faults;

import io.leasehold.proxy.protocol.KafkaMessages;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * Valid request frames (4-byte length, header, body) of every API key and version a proxy
 * advertises, encoded with the kafka-clients generated message classes: the corpus the fuzzer
 * mutates. Produce, Fetch, Metadata and ListOffsets carry a real topic and partition (and
 * Produce a real record batch) so mutations reach the proxy's routing, not only its framing;
 * every other API uses its message's defaults.
 */
final class SeedRequests {

    private SeedRequests() {
    }

    /** One valid frame per advertised (key, version). */
    static List<Seed> forAdvertised(Map<ApiKeys, short[]> advertised, String topic) {
        UnpooledByteBufAllocator alloc = new UnpooledByteBufAllocator(false);
        List<Seed> seeds = new ArrayList<>();
        advertised.forEach((api, range) -> {
            for (short version = range[0]; version <= range[1]; version++) {
                byte[] frame = encode(alloc, api, version, routed(api, topic));
                if (frame == null) {
                    frame = encode(alloc, api, version, ApiMessageType.fromApiKey(api.id).newRequest());
                }
                if (frame != null) {
                    seeds.add(new Seed(api, version, frame));
                }
            }
        });
        return seeds;
    }

    /** A frame, or null when this body cannot be written in this version. */
    private static byte[] encode(UnpooledByteBufAllocator alloc, ApiKeys api, short version, ApiMessage body) {
        ByteBuf request;
        try {
            request = KafkaMessages.encodeRequest(alloc, api, version, "fuzzer", body);
        } catch (UnsupportedVersionException | IllegalArgumentException e) {
            return null;
        }
        try {
            int length = request.readableBytes();
            byte[] frame = new byte[4 + length];
            frame[0] = (byte) (length >>> 24);
            frame[1] = (byte) (length >>> 16);
            frame[2] = (byte) (length >>> 8);
            frame[3] = (byte) length;
            request.getBytes(request.readerIndex(), frame, 4, length);
            return frame;
        } finally {
            request.release();
        }
    }

    private static ApiMessage routed(ApiKeys api, String topic) {
        return switch (api) {
            case PRODUCE -> new ProduceRequestData().setAcks((short) 1).setTimeoutMs(5_000)
                    .setTopicData(new ProduceRequestData.TopicProduceDataCollection(List.of(
                            new ProduceRequestData.TopicProduceData().setName(topic).setPartitionData(List.of(
                                    new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(
                                            MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(
                                                    "fuzz-seed".getBytes(StandardCharsets.UTF_8))))))).iterator()));
            case FETCH -> new FetchRequestData().setMaxWaitMs(100).setMinBytes(1).setMaxBytes(1 << 20)
                    .setTopics(List.of(new FetchRequestData.FetchTopic().setTopic(topic).setPartitions(List.of(
                            new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(0)
                                    .setPartitionMaxBytes(1 << 16)))));
            case METADATA -> new MetadataRequestData().setTopics(List.of(
                    new MetadataRequestData.MetadataRequestTopic().setName(topic)));
            case LIST_OFFSETS -> new ListOffsetsRequestData().setTopics(List.of(
                    new ListOffsetsRequestData.ListOffsetsTopic().setName(topic).setPartitions(List.of(
                            new ListOffsetsRequestData.ListOffsetsPartition().setPartitionIndex(0).setTimestamp(-1)))));
            default -> ApiMessageType.fromApiKey(api.id).newRequest();
        };
    }

    /** A valid request frame. */
    record Seed(ApiKeys api, short version, byte[] frame) {
    }
}
