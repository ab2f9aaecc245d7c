package io.leasehold.proxy.apis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.leasehold.proxy.dispatch.RoutePolicy;
import io.leasehold.proxy.exchange.PartitionErrorWalker;
import io.leasehold.proxy.exchange.StreamedAnswer;
import io.leasehold.proxy.protocol.KafkaMessages;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.AbortedTransaction;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.types.RawTaggedField;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.Test;

/**
 * {@link FetchStreamInspector} fuzzed against kafka-clients' own {@link FetchResponseData}
 * serialisations of every Fetch version the proxy serves, fed in random pieces: it reports every
 * partition's error code, and after it the response decodes to the same message with only the
 * backend broker ids replaced by -1.
 */
class FetchStreamInspectorTest {
    private static final short[] ERRORS = {Errors.NONE.code(), Errors.NOT_LEADER_OR_FOLLOWER.code(),
        Errors.FENCED_LEADER_EPOCH.code(), Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), Errors.OFFSET_OUT_OF_RANGE.code()};
    /**
     * 100 responses per version (fixed seed) already hit every optional field, tagged field and
     * null/non-null choice many times over, cut in random and byte-sized pieces; run more with
     * {@code -Dleasehold.fuzz.fetchCasesPerVersion=N}.
     */
    private static final int CASES_PER_VERSION = Integer.getInteger("leasehold.fuzz.fetchCasesPerVersion", 100);
    private static final PartitionErrorWalker.Layouts LAYOUTS = FetchStreamInspector.layouts();

    private record Seen(String topicName, Uuid topicId, int partition, short error) {
    }

    @Test
    void reportsEveryPartitionErrorAndBlanksOnlyBrokerIdsInEveryVersionWhateverThePieces() {
        Random random = new Random(20261201L);
        for (short version = ApiKeys.FETCH.oldestVersion(); version <= RoutePolicy.FETCH_MAX; version++) {
            for (int n = 0; n < CASES_PER_VERSION; n++) {
                FetchResponseData original = randomResponse(random, version);
                List<Seen> expected = new ArrayList<>();
                for (FetchableTopicResponse t : original.responses()) {
                    for (PartitionData p : t.partitions()) {
                        expected.add(new Seen(t.topic(), t.topicId(), p.partitionIndex(), p.errorCode()));
                    }
                }
                List<Seen> seen = new ArrayList<>();
                List<Short> whole = new ArrayList<>();
                FetchStreamInspector inspector = new FetchStreamInspector(LAYOUTS.walker(version,
                        new StreamedAnswer.StreamedErrors() {
                    @Override
                    public void partition(String topicName, Uuid topicId, int partition, short error) {
                        seen.add(new Seen(topicName, topicId, partition, error));
                    }

                    @Override
                    public void whole(short error) {
                        whole.add(error);
                    }
                }));
                ByteBuf frame = lengthPrefixed(KafkaMessages.encodeResponse(ByteBufAllocator.DEFAULT, ApiKeys.FETCH,
                        version, 42, original));
                ByteBuf unchanged = KafkaMessages.encodeResponse(ByteBufAllocator.DEFAULT, ApiKeys.FETCH, version, 42,
                        original);
                try {
                    feedInPieces(frame, inspector, random);
                    FetchResponseData passed = KafkaMessages.decodeResponse(frame.slice(4, frame.readableBytes() - 4),
                            ApiKeys.FETCH, version);

                    String context = "version " + version + " case " + n;
                    assertThat(inspector.complete()).as(context).isTrue();
                    assertThat(seen).as(context).containsExactlyElementsOf(expected);
                    assertThat(whole).as(context).containsExactlyElementsOf(
                            original.errorCode() == 0 ? List.of() : List.of(original.errorCode()));
                    assertThat(passed).as(context).isEqualTo(withoutBrokerIds(
                            KafkaMessages.decodeResponse(unchanged, ApiKeys.FETCH, version), version));
                } finally {
                    unchanged.release();
                    frame.release();
                }
            }
        }
    }

    @Test
    void bytesThatAreNotAFetchResponseNeverThrow() {
        Random random = new Random(7);
        for (int n = 0; n < 2000; n++) {
            byte[] garbage = new byte[random.nextInt(200)];
            random.nextBytes(garbage);
            FetchStreamInspector inspector = new FetchStreamInspector(LAYOUTS.walker((short) (4 + random.nextInt(12)),
                    new StreamedAnswer.StreamedErrors() {
                        @Override
                        public void partition(String topicName, Uuid topicId, int partition, short error) {
                        }

                        @Override
                        public void whole(short error) {
                        }
                    }));
            ByteBuf bytes = Unpooled.wrappedBuffer(garbage);
            assertThatCode(() -> feedInPieces(bytes, inspector, random)).doesNotThrowAnyException();
        }
    }

    private static void feedInPieces(ByteBuf frame, FetchStreamInspector inspector, Random random) {
        int at = 0;
        boolean byteByByte = random.nextInt(10) == 0;
        while (at < frame.readableBytes()) {
            int n = Math.min(frame.readableBytes() - at, byteByByte ? 1 : 1 + random.nextInt(64));
            inspector.inspect(frame.slice(at, n));
            at += n;
        }
    }

    private static ByteBuf lengthPrefixed(ByteBuf message) {
        ByteBuf frame = Unpooled.buffer(4 + message.readableBytes());
        frame.writeInt(message.readableBytes()).writeBytes(message);
        message.release();
        return frame;
    }

    /** Clears the backend broker ids of {@code response} (decoded, so unknown tagged fields are kept). */
    private static FetchResponseData withoutBrokerIds(FetchResponseData response, short version) {
        for (FetchableTopicResponse t : response.responses()) {
            for (PartitionData p : t.partitions()) {
                if (version >= 11) {
                    p.setPreferredReadReplica(-1);
                }
                p.setCurrentLeader(new FetchResponseData.LeaderIdAndEpoch());
            }
        }
        return response;
    }

    private static FetchResponseData randomResponse(Random random, short version) {
        List<FetchableTopicResponse> topics = new ArrayList<>();
        for (int t = random.nextInt(4); t > 0; t--) {
            List<PartitionData> partitions = new ArrayList<>();
            for (int p = random.nextInt(5); p > 0; p--) {
                partitions.add(randomPartition(random, version));
            }
            FetchableTopicResponse topic = new FetchableTopicResponse().setPartitions(partitions);
            if (version >= 13) {
                topic.setTopicId(Uuid.randomUuid());
            } else {
                topic.setTopic("topic-" + random.nextInt(1000) + ".é_" + "x".repeat(random.nextInt(200)));
            }
            if (version >= 12 && random.nextBoolean()) {
                topic.unknownTaggedFields().add(new RawTaggedField(9, randomBytes(random, 20)));
            }
            topics.add(topic);
        }
        FetchResponseData response = new FetchResponseData().setThrottleTimeMs(random.nextInt(100)).setResponses(topics);
        if (version >= 7) {
            response.setSessionId(random.nextInt()).setErrorCode(random.nextInt(4) == 0 ? (short) 0 : random.nextBoolean()
                    ? Errors.NONE.code() : Errors.NOT_LEADER_OR_FOLLOWER.code());
        }
        if (version >= 12 && random.nextBoolean()) {
            response.unknownTaggedFields().add(new RawTaggedField(7, randomBytes(random, 30)));
        }
        return response;
    }

    private static PartitionData randomPartition(Random random, short version) {
        PartitionData p = new PartitionData().setPartitionIndex(random.nextInt(10_000))
                .setErrorCode(ERRORS[random.nextInt(ERRORS.length)]).setHighWatermark(random.nextLong())
                .setLastStableOffset(random.nextLong())
                .setRecords(random.nextInt(5) == 0 ? null : MemoryRecords.readableRecords(
                        ByteBuffer.wrap(randomBytes(random, 3000))));
        if (version >= 5) {
            p.setLogStartOffset(random.nextLong());
        }
        if (random.nextBoolean()) {
            List<AbortedTransaction> aborted = new ArrayList<>();
            for (int a = random.nextInt(3); a > 0; a--) {
                aborted.add(new AbortedTransaction().setProducerId(random.nextLong()).setFirstOffset(random.nextLong()));
            }
            p.setAbortedTransactions(aborted);
        } else {
            p.setAbortedTransactions(null);
        }
        if (version >= 11) {
            p.setPreferredReadReplica(random.nextInt(5) - 1);
        }
        if (version >= 12) {
            if (random.nextBoolean()) {
                p.setCurrentLeader(new FetchResponseData.LeaderIdAndEpoch().setLeaderId(random.nextInt(100))
                        .setLeaderEpoch(random.nextInt(50)));
            }
            if (random.nextBoolean()) {
                p.setDivergingEpoch(new FetchResponseData.EpochEndOffset().setEpoch(random.nextInt(9))
                        .setEndOffset(random.nextLong()));
            }
            if (random.nextBoolean()) {
                p.setSnapshotId(new FetchResponseData.SnapshotId().setEpoch(random.nextInt(9))
                        .setEndOffset(random.nextLong()));
            }
            if (random.nextBoolean()) {
                p.unknownTaggedFields().add(new RawTaggedField(5, randomBytes(random, 10)));
            }
        }
        return p;
    }

    private static byte[] randomBytes(Random random, int max) {
        byte[] bytes = new byte[random.nextInt(max + 1)];
        random.nextBytes(bytes);
        return bytes;
    }
}
