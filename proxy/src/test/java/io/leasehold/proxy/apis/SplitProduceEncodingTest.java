package io.leasehold.proxy.apis;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.proxy.protocol.KafkaMessages;
import io.leasehold.proxy.protocol.MalformedRequestException;
import io.leasehold.proxy.protocol.RequestFrame;
import io.leasehold.proxy.testing.TestRecords;
import io.leasehold.proxy.versions.VersionBridge;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A Produce split by owner whose record sets are slices of the client's frame is, byte for byte,
 * what the generated classes encode into one buffer, in every Produce version the proxy speaks;
 * and it keeps the client's frame alive until it is released, then lets it go.
 */
class SplitProduceEncodingTest {
    private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;
    private static final ProduceApi PRODUCE = new ProduceApi(null);

    static Stream<Short> versions() {
        return IntStream.rangeClosed(3, ApiKeys.PRODUCE.latestVersion()).mapToObj(v -> (short) v);
    }

    @ParameterizedTest(name = "Produce v{0}")
    @MethodSource("versions")
    void ownersShareOfTheClientsFrameIsTheGeneratedEncodingByteForByte(short version) throws Exception {
        ByteBuf frame = clientFrame(version);
        RequestFrame request = RequestFrame.parse(frame);
        ByteBuf sliced = null;
        ByteBuf copied = null;
        try {
            ProduceRequestData decoded = request.decodeBody();
            List<TopicProduceData> topics = List.copyOf(decoded.topicData());
            TopicProduceData orders = topics.get(0);
            TopicProduceData payments = topics.get(1);
            // One owner's share: the second and third partition of one topic, the first of the other.
            LinkedHashMap<TopicProduceData, List<PartitionProduceData>> share = new LinkedHashMap<>();
            share.put(orders, orders.partitionData().subList(1, 3));
            share.put(payments, payments.partitionData().subList(0, 1));
            ProduceRequestData sub = PRODUCE.subRequest(decoded, share);
            PRODUCE.limitTimeout(sub, 12_000);

            copied = KafkaMessages.encodeRequest(ALLOC, ApiKeys.PRODUCE, version, "client-1", sub);
            sliced = VersionBridge.encodeRequest(ALLOC, request, version, sub);

            assertThat(ByteBufUtil.getBytes(sliced)).isEqualTo(ByteBufUtil.getBytes(copied));
            assertThat(sliced).as("record sets are not copied").isInstanceOf(CompositeByteBuf.class);

            request.release();
            assertThat(frame.refCnt()).as("the owner's share holds the client's frame").isPositive();
            assertThat(ByteBufUtil.getBytes(sliced)).as("still readable once the exchange let go of the frame")
                    .isEqualTo(ByteBufUtil.getBytes(copied));
            sliced.release();
            sliced = null;
            assertThat(frame.refCnt()).as("released with the owner's share").isZero();
        } finally {
            // The sliced share first: it releases its hold on the frame.
            if (sliced != null) {
                sliced.release();
            }
            if (copied != null) {
                copied.release();
            }
            if (frame.refCnt() > 0) {
                frame.release(frame.refCnt());
            }
        }
    }

    @ParameterizedTest(name = "Produce v{0}")
    @MethodSource("versions")
    void requestWithoutRecordSetsIsEncodedIntoOneBuffer(short version) throws MalformedRequestException {
        ProduceRequestData empty = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(30_000);
        ByteBuf frame = withoutLengthPrefix(KafkaMessages.encodeRequest(ALLOC, ApiKeys.PRODUCE, version, "client-1",
                empty));
        RequestFrame request = RequestFrame.parse(frame);
        ByteBuf encoded = null;
        try {
            encoded = VersionBridge.encodeRequest(ALLOC, request, version, request.decodeBody());
            assertThat(encoded).isNotInstanceOf(CompositeByteBuf.class);
        } finally {
            request.release();
            if (encoded != null) {
                encoded.release();
            }
        }
    }

    /** The client's whole request as the frame decoder hands it on: header and body, in a pooled buffer. */
    private static ByteBuf clientFrame(short version) {
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(topic("orders", ordersId(), version, 3));
        topics.add(topic("payments", paymentsId(), version, 2));
        ProduceRequestData request = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(30_000)
                .setTopicData(topics);
        return withoutLengthPrefix(KafkaMessages.encodeRequest(ALLOC, ApiKeys.PRODUCE, version, "client-1", request));
    }

    /** A copy in a fresh pooled buffer with other bytes before it, as a frame sliced out of a read would sit. */
    private static ByteBuf withoutLengthPrefix(ByteBuf encoded) {
        try {
            ByteBuf frame = ALLOC.directBuffer(encoded.readableBytes() + 16);
            frame.writeBytes(Unpooled.wrappedBuffer(new byte[16])).skipBytes(16).writeBytes(encoded);
            return frame;
        } finally {
            encoded.release();
        }
    }

    private static TopicProduceData topic(String name, Uuid id, short version, int partitions) {
        TopicProduceData topic = new TopicProduceData().setName(version >= 13 ? "" : name)
                .setTopicId(version >= 13 ? id : Uuid.ZERO_UUID);
        for (int p = 0; p < partitions; p++) {
            topic.partitionData().add(new PartitionProduceData().setIndex(p).setRecords(records(name + p, p + 2)));
        }
        return topic;
    }

    private static MemoryRecords records(String prefix, int count) {
        return TestRecords.records(prefix, count, 300);
    }

    private static Uuid ordersId() {
        return new Uuid(1L, 2L);
    }

    private static Uuid paymentsId() {
        return new Uuid(3L, 4L);
    }
}
