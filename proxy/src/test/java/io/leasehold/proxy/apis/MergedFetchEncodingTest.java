package io.leasehold.proxy.apis;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.proxy.protocol.KafkaMessages;
import io.leasehold.proxy.protocol.RecordRegions;
import io.leasehold.proxy.testing.TestRecords;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.AbortedTransaction;
import org.apache.kafka.common.message.FetchResponseData.EpochEndOffset;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A merged Fetch answer whose record sets are slices of the owners' frames is, byte for byte,
 * what the generated classes encode into one buffer, in every Fetch version the proxy speaks to
 * clients; and it keeps the owners' frames alive until it is released, then lets them go.
 */
class MergedFetchEncodingTest {
    private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;
    private static final int CORRELATION_ID = 4242;
    private static final FetchTopic ORDERS = topic("orders", 3);
    private static final FetchTopic PAYMENTS = topic("payments", 3);

    static Stream<Short> versions() {
        return IntStream.rangeClosed(4, ApiKeys.FETCH.latestVersion()).mapToObj(v -> (short) v);
    }

    @ParameterizedTest(name = "Fetch v{0}")
    @MethodSource("versions")
    void slicedAnswerIsTheGeneratedEncodingByteForByte(short version) {
        List<ByteBuf> frames = new ArrayList<>();
        RecordRegions regions = new RecordRegions();
        ByteBuf sliced = null;
        ByteBuf copied = null;
        try {
            // Owner A: data, an empty partition, an error; owner B: a transaction with an abort, and
            // data past max_bytes (answered without records).
            FetchResponseData ownerA = response(
                    new FetchableTopicResponse().setTopic(ORDERS.topic()).setTopicId(ORDERS.topicId()).setPartitions(List.of(
                            data(0, records("a", 3), version), empty(1), failed(2, Errors.NOT_LEADER_OR_FOLLOWER))));
            FetchResponseData ownerB = response(
                    new FetchableTopicResponse().setTopic(PAYMENTS.topic()).setTopicId(PAYMENTS.topicId()).setPartitions(List.of(
                            transactional(0), data(1, records("b", 2), version), data(2, records("c", 40), version))));
            FetchResponseData decodedA = decoded(ownerA, version, frames, regions);
            FetchResponseData decodedB = decoded(ownerB, version, frames, regions);

            LinkedHashMap<FetchTopic, List<PartitionData>> results = new LinkedHashMap<>();
            results.put(ORDERS, decodedA.responses().get(0).partitions());
            results.put(PAYMENTS, decodedB.responses().get(0).partitions());
            FetchRequestData request = new FetchRequestData().setMaxBytes(2_000).setTopics(List.of(ORDERS, PAYMENTS));
            FetchResponseData merged = new FetchApi().assemble(request, results, 7);
            assertThat(merged.responses().get(1).partitions().get(2).records().sizeInBytes())
                    .as("the partition past max_bytes is answered without records").isZero();

            copied = KafkaMessages.encodeResponse(ALLOC, ApiKeys.FETCH, version, CORRELATION_ID, merged);
            sliced = KafkaMessages.encodeResponse(ALLOC, ApiKeys.FETCH, version, CORRELATION_ID, merged, regions);

            assertThat(ByteBufUtil.getBytes(sliced)).isEqualTo(ByteBufUtil.getBytes(copied));
            assertThat(sliced).isInstanceOf(CompositeByteBuf.class);

            frames.forEach(ByteBuf::release);
            assertThat(frames).as("the answer holds the owners' frames").allMatch(f -> f.refCnt() > 0);
            assertThat(ByteBufUtil.getBytes(sliced)).as("still readable once the exchange let go of the frames")
                    .isEqualTo(ByteBufUtil.getBytes(copied));
            sliced.release();
            sliced = null;
            assertThat(frames).as("released with the answer").allMatch(f -> f.refCnt() == 0);
            frames.clear();
        } finally {
            frames.stream().filter(f -> f.refCnt() > 0).forEach(ByteBuf::release);
            if (sliced != null) {
                sliced.release();
            }
            if (copied != null) {
                copied.release();
            }
        }
    }

    /** Encodes an owner's answer as its broker would send it, and decodes it as the exchange does. */
    private static FetchResponseData decoded(FetchResponseData answer, short version, List<ByteBuf> frames,
                                             RecordRegions regions) {
        ByteBuf frame = KafkaMessages.encodeResponse(ALLOC, ApiKeys.FETCH, version, 1, answer);
        frames.add(frame);
        return KafkaMessages.decodeResponse(frame, ApiKeys.FETCH, version, regions);
    }

    private static FetchResponseData response(FetchableTopicResponse topic) {
        return new FetchResponseData().setResponses(List.of(topic));
    }

    private static FetchTopic topic(String name, int partitions) {
        List<FetchPartition> parts = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            parts.add(new FetchPartition().setPartition(p).setPartitionMaxBytes(1 << 20));
        }
        return new FetchTopic().setTopic(name).setTopicId(Uuid.randomUuid()).setPartitions(parts);
    }

    private static MemoryRecords records(String prefix, int count) {
        return TestRecords.records(prefix, count, 90);
    }

    private static PartitionData data(int partition, MemoryRecords records, short version) {
        PartitionData p = new PartitionData().setPartitionIndex(partition).setHighWatermark(100)
                .setLastStableOffset(90).setLogStartOffset(3).setRecords(records);
        if (version >= 12) {
            // A tagged field, written after the record set's neighbours.
            p.setDivergingEpoch(new EpochEndOffset().setEpoch(4).setEndOffset(77));
        }
        return p;
    }

    private static PartitionData empty(int partition) {
        return new PartitionData().setPartitionIndex(partition).setHighWatermark(50).setLastStableOffset(50)
                .setLogStartOffset(0).setRecords(MemoryRecords.EMPTY);
    }

    private static PartitionData failed(int partition, Errors error) {
        return new PartitionData().setPartitionIndex(partition).setErrorCode(error.code()).setHighWatermark(-1)
                .setLastStableOffset(-1).setLogStartOffset(-1).setRecords(MemoryRecords.EMPTY);
    }

    private static PartitionData transactional(int partition) {
        MemoryRecords records = MemoryRecords.withTransactionalRecords(Compression.NONE, 9_001L, (short) 2, 0,
                new SimpleRecord("t".getBytes(StandardCharsets.UTF_8)));
        return new PartitionData().setPartitionIndex(partition).setHighWatermark(10).setLastStableOffset(8)
                .setLogStartOffset(0).setRecords(records)
                .setAbortedTransactions(List.of(new AbortedTransaction().setProducerId(9_001L).setFirstOffset(0)));
    }
}
