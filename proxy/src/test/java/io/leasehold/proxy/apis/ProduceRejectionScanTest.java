package io.leasehold.proxy.apis;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.proxy.protocol.KafkaMessages;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import java.util.List;
import java.util.Random;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.BatchIndexAndErrorMessage;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * {@link ProduceRejectionScan} against kafka-clients' own {@link ProduceResponseData}
 * serialisations of every Produce version: it finds a rejected partition wherever it is, leaves
 * the bytes as they were, and refuses what does not parse, so that the caller decodes it.
 */
class ProduceRejectionScanTest {
    private static final Errors REJECTION = Errors.NOT_LEADER_OR_FOLLOWER;
    private static final Errors[] ERRORS = {Errors.NONE, Errors.NONE, Errors.NONE, REJECTION,
        Errors.REQUEST_TIMED_OUT, Errors.INVALID_RECORD, Errors.TOPIC_AUTHORIZATION_FAILED};
    private static final int CASES_PER_VERSION = 200;

    private final ProduceRejectionScan scan = new ProduceRejectionScan();

    @Test
    void findsARejectedPartitionInEveryVersionAndChangesNoByte() {
        Random random = new Random(20261206L);
        for (short version = ApiKeys.PRODUCE.oldestVersion(); version <= ApiKeys.PRODUCE.latestVersion(); version++) {
            int withRejection = 0;
            for (int n = 0; n < CASES_PER_VERSION; n++) {
                ProduceResponseData response = randomResponse(random, version);
                boolean rejected = response.responses().stream().flatMap(t -> t.partitionResponses().stream())
                        .anyMatch(p -> p.errorCode() == REJECTION.code());
                withRejection += rejected ? 1 : 0;
                ByteBuf frame = KafkaMessages.encodeResponse(ByteBufAllocator.DEFAULT, ApiKeys.PRODUCE, version, 7,
                        response);
                try {
                    byte[] before = ByteBufUtil.getBytes(frame);
                    int readerIndex = frame.readerIndex();

                    boolean rejectsNone = scan.rejectsNone(frame, version, REJECTION);

                    String context = "version " + version + " case " + n;
                    assertThat(rejectsNone).as(context).isEqualTo(!rejected);
                    assertThat(frame.readerIndex()).as(context).isEqualTo(readerIndex);
                    assertThat(ByteBufUtil.getBytes(frame)).as(context).isEqualTo(before);
                } finally {
                    frame.release();
                }
            }
            // The cases must hold both outcomes, or the assertion above proves only one of them.
            assertThat(withRejection).as("version " + version).isBetween(1, CASES_PER_VERSION - 1);
        }
    }

    @Test
    void aResponseCutShortIsNotTakenForOneWithoutRejections() {
        short version = 9;
        ProduceResponseData response = new ProduceResponseData();
        response.responses().add(new TopicProduceResponse().setName("orders")
                .setPartitionResponses(List.of(new PartitionProduceResponse().setIndex(0))));
        ByteBuf frame = KafkaMessages.encodeResponse(ByteBufAllocator.DEFAULT, ApiKeys.PRODUCE, version, 7, response);
        try {
            for (int length = 0; length < frame.readableBytes(); length++) {
                assertThat(scan.rejectsNone(frame.slice(frame.readerIndex(), length), version, REJECTION))
                        .as("first %d of %d bytes", length, frame.readableBytes()).isFalse();
            }
            assertThat(scan.rejectsNone(frame, version, REJECTION)).isTrue();
        } finally {
            frame.release();
        }
    }

    private static ProduceResponseData randomResponse(Random random, short version) {
        ProduceResponseData response = new ProduceResponseData().setThrottleTimeMs(random.nextInt(3) * 100);
        int topics = 1 + random.nextInt(3);
        for (int t = 0; t < topics; t++) {
            TopicProduceResponse topic = new TopicProduceResponse();
            if (version >= 13) {
                topic.setTopicId(Uuid.randomUuid());
            } else {
                topic.setName("topic-" + t + "-" + random.nextInt(1000));
            }
            int partitions = 1 + random.nextInt(4);
            for (int p = 0; p < partitions; p++) {
                Errors error = ERRORS[random.nextInt(ERRORS.length)];
                PartitionProduceResponse partition = new PartitionProduceResponse().setIndex(p)
                        .setErrorCode(error.code()).setBaseOffset(random.nextInt(1_000_000))
                        .setLogAppendTimeMs(-1).setLogStartOffset(version >= 5 ? random.nextInt(1000) : -1);
                if (version >= 8 && error == Errors.INVALID_RECORD) {
                    partition.setErrorMessage("bad record").recordErrors().add(
                            new BatchIndexAndErrorMessage().setBatchIndex(random.nextInt(5))
                                    .setBatchIndexErrorMessage(random.nextBoolean() ? null : "crc"));
                }
                topic.partitionResponses().add(partition);
            }
            response.responses().add(topic);
        }
        return response;
    }
}
