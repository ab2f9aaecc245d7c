package io.leasehold.proxy.apis;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.proxy.admin.ProxyMetrics;
import io.leasehold.proxy.exchange.EntryAccess;
import io.leasehold.proxy.exchange.PartitionedApi;
import io.leasehold.proxy.exchange.PartitionedRequestRunner;
import io.leasehold.proxy.exchange.RetryFactory;
import io.leasehold.proxy.owners.OwnerLookup;
import io.leasehold.proxy.protocol.KafkaMessages;
import io.leasehold.proxy.protocol.RequestFrame;
import io.leasehold.proxy.request.ActiveRequests;
import io.leasehold.proxy.request.ClientContext;
import io.leasehold.proxy.request.ConnectionWork;
import io.leasehold.proxy.request.MemoryBudget;
import io.leasehold.proxy.request.NegotiatedVersions;
import io.leasehold.proxy.request.PartitionWriteOrder;
import io.leasehold.proxy.testing.FixedRoutes;
import io.leasehold.proxy.testing.ScriptedBackends;
import io.leasehold.proxy.versions.VersionBridge;
import io.leasehold.routing.snapshot.BrokerAddress;
import io.leasehold.routing.snapshot.Ownership;
import io.leasehold.routing.snapshot.RoutingSnapshot;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsPartition;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Splitting and merging a request of one topic with many partitions costs work in proportion to
 * its partitions. Measured without a clock: a generated topic element's {@code hashCode} calls its
 * every partition's, so the test's partitions count those calls, and doubling the partitions must
 * no more than double them (grouping by the topic element once per partition quadruples them).
 */
class MergeCostTest {
    private static final int PARTITIONS = 200;

    private ScriptedBackends backends;
    private EmbeddedChannel channel;
    private ClientContext client;
    private RoutingSnapshot.Builder routes;

    @BeforeEach
    void start() throws Exception {
        backends = new ScriptedBackends(Duration.ofSeconds(10));
        channel = new EmbeddedChannel();
        client = new ClientContext(backends.session(), new PartitionWriteOrder(),
                new ConnectionWork(new ActiveRequests(), () -> { }), new NegotiatedVersions(), ByteBufAllocator.DEFAULT,
                "test", channel);
        BrokerAddress first = backends.broker(1, MergeCostTest::answer);
        BrokerAddress second = backends.broker(2, MergeCostTest::answer);
        routes = RoutingSnapshot.builder().broker(first).broker(second);
        // Even partitions on broker 1, odd ones on broker 2: every request is split and merged.
        for (int p = 0; p < 2 * PARTITIONS; p++) {
            routes.partition("events", p, new Ownership(1 + p % 2, 3));
        }
    }

    @AfterEach
    void stop() {
        channel.close();
        backends.close();
    }

    /** Answers every partition asked without error, a Fetch partition with one record at its offset. */
    private static ApiMessage answer(ApiMessage body) {
        if (body instanceof FetchRequestData fetch) {
            List<FetchResponseData.FetchableTopicResponse> topics = new ArrayList<>();
            fetch.topics().forEach(t -> topics.add(new FetchResponseData.FetchableTopicResponse().setTopic(t.topic())
                    .setPartitions(t.partitions().stream().map(p -> new FetchResponseData.PartitionData()
                            .setPartitionIndex(p.partition()).setHighWatermark(p.fetchOffset() + 1)
                            .setRecords(MemoryRecords.withRecords(p.fetchOffset(), Compression.NONE,
                                    new SimpleRecord(new byte[8]))))
                            .toList())));
            return new FetchResponseData().setResponses(topics);
        }
        ListOffsetsRequestData listOffsets = (ListOffsetsRequestData) body;
        List<ListOffsetsResponseData.ListOffsetsTopicResponse> topics = new ArrayList<>();
        listOffsets.topics().forEach(t -> topics.add(new ListOffsetsResponseData.ListOffsetsTopicResponse()
                .setName(t.name()).setPartitions(t.partitions().stream().map(p ->
                        new ListOffsetsResponseData.ListOffsetsPartitionResponse()
                                .setPartitionIndex(p.partitionIndex()).setOffset(5)).toList())));
        return new ListOffsetsResponseData().setTopics(topics);
    }

    /** A Fetch partition that counts calls of its {@code hashCode}. */
    private static final class CountedFetchPartition extends FetchPartition {
        private final AtomicLong hashes;

        CountedFetchPartition(AtomicLong hashes) {
            this.hashes = hashes;
        }

        @Override
        public int hashCode() {
            hashes.incrementAndGet();
            return super.hashCode();
        }
    }

    /** A ListOffsets partition that counts calls of its {@code hashCode}. */
    private static final class CountedListOffsetsPartition extends ListOffsetsPartition {
        private final AtomicLong hashes;

        CountedListOffsetsPartition(AtomicLong hashes) {
            this.hashes = hashes;
        }

        @Override
        public int hashCode() {
            hashes.incrementAndGet();
            return super.hashCode();
        }
    }

    /** Runs {@code request} through routing with reads ahead on, checks every partition is answered. */
    private <Q extends ApiMessage, R extends ApiMessage> R send(PartitionedApi<Q, R, ?, ?, ?> api, short version,
                                                                Q request) throws Exception {
        PartitionedRequestRunner routing = new PartitionedRequestRunner(
                new OwnerLookup(new FixedRoutes(routes.build()), List.of()),
                ids -> CompletableFuture.completedFuture(Map.of()),
                new RetryFactory(Duration.ofMillis(1), Duration.ofMillis(5)), new ProxyMetrics(new SimpleMeterRegistry()),
                Duration.ofSeconds(30), VersionBridge::none,
                new PartitionedRequestRunner.ReadAhead(new MemoryBudget(1L << 30), Duration.ofSeconds(60)));
        ByteBuf buf = KafkaMessages.encodeRequest(ByteBufAllocator.DEFAULT, api.apiKey(), version, "client", request);
        KafkaMessages.withRequestCorrelationId(buf, 11);
        RequestFrame frame = RequestFrame.parse(buf);
        ByteBuf response = (ByteBuf) routing.execute(api, frame, request, client, EntryAccess.everything()).get(20,
                TimeUnit.SECONDS);
        try {
            return KafkaMessages.decodeResponse(response, api.apiKey(), version);
        } finally {
            response.release();
        }
    }

    /** Partition hashes counted while a Fetch of {@code partitions} partitions of one topic is split, merged and read ahead. */
    private long fetchHashes(int partitions) {
        AtomicLong hashes = new AtomicLong();
        List<FetchPartition> parts = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            parts.add(new CountedFetchPartition(hashes).setPartition(p).setFetchOffset(10).setPartitionMaxBytes(1 << 20));
        }
        // min_bytes above all the data and a long max_wait: the answer waits for both owners, so the
        // same work is done every run, and both are read ahead.
        FetchRequestData fetch = new FetchRequestData().setMaxWaitMs(10_000).setMinBytes(1 << 30).setMaxBytes(50 << 20)
                .setSessionEpoch(-1).setTopics(List.of(new FetchRequestData.FetchTopic().setTopic("events")
                        .setPartitions(parts)));
        try {
            FetchResponseData response = send(new FetchApi(), (short) 12, fetch);
            assertThat(response.responses().get(0).partitions()).hasSize(partitions)
                    .allSatisfy(p -> assertThat(p.records().sizeInBytes()).as("records of " + p.partitionIndex())
                            .isPositive());
            return hashes.get();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** Partition hashes counted while a ListOffsets of {@code partitions} partitions of one topic is split and merged. */
    private long listOffsetsHashes(int partitions) {
        AtomicLong hashes = new AtomicLong();
        List<ListOffsetsPartition> parts = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            parts.add(new CountedListOffsetsPartition(hashes).setPartitionIndex(p).setTimestamp(-1));
        }
        ListOffsetsRequestData request = new ListOffsetsRequestData().setReplicaId(-1).setTopics(List.of(
                new ListOffsetsRequestData.ListOffsetsTopic().setName("events").setPartitions(parts)));
        try {
            ListOffsetsResponseData response = send(new ListOffsetsApi(), (short) 7, request);
            assertThat(response.topics().get(0).partitions()).hasSize(partitions)
                    .allSatisfy(p -> assertThat(p.errorCode()).isEqualTo(Errors.NONE.code()));
            return hashes.get();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void mergingAFetchOfOneTopicCostsInProportionToItsPartitions() {
        long single = fetchHashes(PARTITIONS);
        long twice = fetchHashes(2 * PARTITIONS);

        assertThat(twice).as("partition hashes for %d partitions, against %d for %d", 2 * PARTITIONS, single, PARTITIONS)
                .isLessThanOrEqualTo(2 * single);
    }

    @Test
    void mergingAListOffsetsOfOneTopicCostsInProportionToItsPartitions() {
        long single = listOffsetsHashes(PARTITIONS);
        long twice = listOffsetsHashes(2 * PARTITIONS);

        assertThat(twice).as("partition hashes for %d partitions, against %d for %d", 2 * PARTITIONS, single, PARTITIONS)
                .isLessThanOrEqualTo(2 * single);
    }
}
