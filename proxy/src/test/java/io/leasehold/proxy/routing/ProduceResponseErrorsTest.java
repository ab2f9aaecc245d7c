package io.leasehold.proxy.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.leasehold.proxy.protocol.KafkaMessages;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.BatchIndexAndErrorMessage;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.types.RawTaggedField;
import org.junit.jupiter.api.Test;

/**
 * {@link ProduceApi#responseErrors} fuzzed against kafka-clients' own {@link ProduceResponseData}
 * serialisations of every Produce version the proxy serves: it reports every partition's error
 * code with its topic, in order, reads the whole frame, and leaves its bytes as they were.
 */
class ProduceResponseErrorsTest {
    private static final short[] ERRORS = {Errors.NONE.code(), Errors.NOT_LEADER_OR_FOLLOWER.code(),
        Errors.INVALID_RECORD.code(), Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), Errors.REQUEST_TIMED_OUT.code()};
    private static final int CASES_PER_VERSION = 200;

    private record Seen(String topicName, int partition, short error) {
    }

    private final ProduceApi api = new ProduceApi();

    @Test
    void reportsEveryPartitionErrorOfEveryServedVersionAndChangesNoByte() {
        Random random = new Random(20261201L);
        for (short version = 3; version <= RoutePolicy.PRODUCE_MAX; version++) {
            for (int n = 0; n < CASES_PER_VERSION; n++) {
                ProduceResponseData original = randomResponse(random, version);
                List<Seen> expected = new ArrayList<>();
                for (TopicProduceResponse t : original.responses()) {
                    for (PartitionProduceResponse p : t.partitionResponses()) {
                        expected.add(new Seen(t.name(), p.index(), p.errorCode()));
                    }
                }
                List<Seen> seen = new ArrayList<>();
                List<Short> whole = new ArrayList<>();
                PartitionErrorWalker walker = api.responseErrors(version, new PartitionedApi.StreamedErrors() {
                    @Override
                    public void partition(String topicName, Uuid topicId, int partition, short error) {
                        seen.add(new Seen(topicName, partition, error));
                    }

                    @Override
                    public void whole(short error) {
                        whole.add(error);
                    }
                });
                ByteBuf frame = KafkaMessages.encodeResponse(ByteBufAllocator.DEFAULT, ApiKeys.PRODUCE, version, 42,
                        original);
                try {
                    byte[] before = ByteBufUtil.getBytes(frame);
                    walker.accept(frame);

                    String context = "version " + version + " case " + n;
                    assertThat(walker.complete()).as(context).isTrue();
                    assertThat(seen).as(context).containsExactlyElementsOf(expected);
                    assertThat(whole).as(context).isEmpty();
                    assertThat(ByteBufUtil.getBytes(frame)).as(context).isEqualTo(before);
                } finally {
                    frame.release();
                }
            }
        }
    }

    @Test
    void bytesThatAreNotAProduceResponseAreNeverCompleteAndNeverThrow() {
        Random random = new Random(7);
        for (int n = 0; n < 2000; n++) {
            short version = (short) (3 + random.nextInt(RoutePolicy.PRODUCE_MAX - 2));
            ByteBuf frame = KafkaMessages.encodeResponse(ByteBufAllocator.DEFAULT, ApiKeys.PRODUCE, version, 42,
                    randomResponse(random, version));
            try {
                // A frame cut short: the walk must not claim it read a whole response.
                ByteBuf cut = frame.slice(0, random.nextInt(frame.readableBytes()));
                PartitionErrorWalker walker = api.responseErrors(version, ignoring());
                walker.accept(cut);
                assertThat(walker.complete()).as("version %d, %d of %d bytes", version, cut.readableBytes(),
                        frame.readableBytes()).isFalse();
            } finally {
                frame.release();
            }
            ByteBuf garbage = Unpooled.wrappedBuffer(FetchStreamInspectorTest.randomBytes(random, 200));
            assertThatCode(() -> api.responseErrors(version, ignoring()).accept(garbage)).doesNotThrowAnyException();
        }
    }

    private static PartitionedApi.StreamedErrors ignoring() {
        return new PartitionedApi.StreamedErrors() {
            @Override
            public void partition(String topicName, Uuid topicId, int partition, short error) {
            }

            @Override
            public void whole(short error) {
            }
        };
    }

    private static ProduceResponseData randomResponse(Random random, short version) {
        ProduceResponseData.TopicProduceResponseCollection topics = new ProduceResponseData.TopicProduceResponseCollection();
        for (int t = random.nextInt(4); t > 0; t--) {
            TopicProduceResponse topic = new TopicProduceResponse()
                    .setName("topic-" + topics.size() + "-" + random.nextInt(1000) + ".é_" + "x".repeat(random.nextInt(200)));
            for (int p = random.nextInt(5); p > 0; p--) {
                topic.partitionResponses().add(randomPartition(random, version));
            }
            if (version >= 9 && random.nextBoolean()) {
                topic.unknownTaggedFields().add(new RawTaggedField(9, FetchStreamInspectorTest.randomBytes(random, 20)));
            }
            topics.add(topic);
        }
        ProduceResponseData response = new ProduceResponseData().setThrottleTimeMs(random.nextInt(100))
                .setResponses(topics);
        if (version >= 9 && random.nextBoolean()) {
            response.unknownTaggedFields().add(new RawTaggedField(7, FetchStreamInspectorTest.randomBytes(random, 30)));
        }
        return response;
    }

    private static PartitionProduceResponse randomPartition(Random random, short version) {
        short error = ERRORS[random.nextInt(ERRORS.length)];
        PartitionProduceResponse p = new PartitionProduceResponse().setIndex(random.nextInt(10_000))
                .setErrorCode(error).setBaseOffset(random.nextLong()).setLogAppendTimeMs(random.nextLong());
        if (version >= 5) {
            p.setLogStartOffset(random.nextLong());
        }
        if (version >= 8 && error != Errors.NONE.code()) {
            for (int b = random.nextInt(3); b > 0; b--) {
                p.recordErrors().add(new BatchIndexAndErrorMessage().setBatchIndex(random.nextInt(100))
                        .setBatchIndexErrorMessage(random.nextBoolean() ? null : "bad record " + b));
            }
            p.setErrorMessage(random.nextBoolean() ? null : "broker says " + "y".repeat(random.nextInt(50)));
        }
        if (version >= 9 && random.nextBoolean()) {
            p.unknownTaggedFields().add(new RawTaggedField(5, FetchStreamInspectorTest.randomBytes(random, 10)));
        }
        return p;
    }
}
