package io.leasehold.proxy.apis;

import io.leasehold.proxy.protocol.KafkaMessages;
import io.leasehold.proxy.protocol.MalformedRequestException;
import io.leasehold.proxy.protocol.RequestFrame;
import io.leasehold.routing.snapshot.BrokerAddress;
import io.leasehold.routing.snapshot.Ownership;
import io.leasehold.routing.snapshot.RoutingSnapshot;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The proxy's produce hot path without the network: parse the client's frame, decode the body
 * with the generated message class (record sets stay views of the frame), look every partition's
 * owner up in the {@link RoutingSnapshot}, then either forward the original bytes (one owner) or
 * build and encode one sub-request per owner with the proxy's own {@link ProduceApi}; and the way
 * back, decoding the brokers' sub-responses and encoding the merged response.
 *
 * <p>It lives in the proxy's routing package because {@link ProduceApi} is package-private there:
 * the benchmark calls the product's code rather than a copy of it. The grouping by owner mirrors
 * what {@code PartitionedExchange} does around its network sends.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ProduceSplitBenchmark {

    private static final short VERSION = 12;
    private static final int RECORDS_PER_BATCH = 10;
    private static final int RECORD_BYTES = 100;
    private static final String TOPIC = "orders";

    /** Partitions in the produce request. */
    @Param({"1", "10", "100"})
    public int partitions;

    /** Brokers owning them (round robin); 1 takes the forward-the-original-bytes path. */
    @Param({"1", "3"})
    public int owners;

    /** The split and merge do not depend on the owner deadline (a bound on waiting only). */
    private final ProduceApi api = new ProduceApi(null);
    private final ByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;
    private RoutingSnapshot snapshot;
    private ByteBuf requestFrame;
    /** Parsed once for the merge benchmark; its record sets are views of the frame, so it lives for the trial. */
    private RequestFrame parsedRequest;
    private ProduceRequestData request;
    private List<ByteBuf> subResponses;

    @Setup(Level.Trial)
    public void prepare() {
        RoutingSnapshot.Builder builder = RoutingSnapshot.builder();
        for (int id = 1; id <= owners; id++) {
            builder.broker(new BrokerAddress(id, "127.0.0.1", 9000 + id, null));
        }
        TopicProduceData topic = new TopicProduceData().setName(TOPIC);
        byte[] value = new byte[RECORD_BYTES];
        for (int p = 0; p < partitions; p++) {
            builder.partition(TOPIC, p, new Ownership(1 + p % owners, 100 + p));
            SimpleRecord[] records = new SimpleRecord[RECORDS_PER_BATCH];
            for (int r = 0; r < RECORDS_PER_BATCH; r++) {
                records[r] = new SimpleRecord(value);
            }
            topic.partitionData().add(new PartitionProduceData().setIndex(p)
                    .setRecords(MemoryRecords.withRecords(Compression.NONE, records)));
        }
        snapshot = builder.revision(1).build();
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(topic);
        ProduceRequestData data = new ProduceRequestData().setAcks((short) 1).setTimeoutMs(30_000).setTopicData(topics);
        requestFrame = KafkaMessages.encodeRequest(alloc, ApiKeys.PRODUCE, VERSION, "bench-client", data);
        parsedRequest = parse(requestFrame.retainedDuplicate());
        request = decode(parsedRequest);
        subResponses = new ArrayList<>();
        for (Map.Entry<Integer, LinkedHashMap<TopicProduceData, List<PartitionProduceData>>> owner
                : groupByOwner(request).entrySet()) {
            subResponses.add(KafkaMessages.encodeResponse(alloc, ApiKeys.PRODUCE, VERSION, 7,
                    acknowledge(owner.getValue())));
        }
    }

    @TearDown(Level.Trial)
    public void release() {
        parsedRequest.release();
        requestFrame.release();
        subResponses.forEach(ByteBuf::release);
    }

    /** Client frame in, what goes to the brokers out (then released, as the socket write would). */
    @Benchmark
    public void decodeSplitEncode(Blackhole blackhole) throws MalformedRequestException {
        RequestFrame frame = RequestFrame.parse(requestFrame.retainedDuplicate());
        try {
            ProduceRequestData decoded = frame.decodeBody();
            Map<Integer, LinkedHashMap<TopicProduceData, List<PartitionProduceData>>> byOwner = groupByOwner(decoded);
            if (byOwner.size() == 1) {
                ByteBuf forwarded = KafkaMessages.withRequestCorrelationId(frame.retainedFrame(), 42);
                blackhole.consume(forwarded);
                forwarded.release();
                return;
            }
            for (LinkedHashMap<TopicProduceData, List<PartitionProduceData>> part : byOwner.values()) {
                ByteBuf sub = KafkaMessages.encodeRequest(alloc, ApiKeys.PRODUCE, frame.version(),
                        frame.header().clientId(), api.subRequest(decoded, part));
                blackhole.consume(sub);
                sub.release();
            }
        } finally {
            frame.release();
        }
    }

    /** The brokers' sub-responses in, the client's merged response out. */
    @Benchmark
    public void decodeMergeEncode(Blackhole blackhole) {
        Map<Integer, PartitionProduceResponse> byPartition = new TreeMap<>();
        for (ByteBuf sub : subResponses) {
            ProduceResponseData response = KafkaMessages.decodeResponse(sub, ApiKeys.PRODUCE, VERSION);
            api.forEachResult(response, (name, id, partition, result) -> byPartition.put(partition, result));
        }
        LinkedHashMap<TopicProduceData, List<PartitionProduceResponse>> merged = new LinkedHashMap<>();
        for (TopicProduceData topic : request.topicData()) {
            List<PartitionProduceResponse> results = new ArrayList<>();
            for (PartitionProduceData partition : topic.partitionData()) {
                results.add(byPartition.get(partition.index()));
            }
            merged.put(topic, results);
        }
        ByteBuf out = KafkaMessages.encodeResponse(alloc, ApiKeys.PRODUCE, VERSION, 42,
                api.assemble(request, merged, 0));
        blackhole.consume(out);
        out.release();
    }

    private Map<Integer, LinkedHashMap<TopicProduceData, List<PartitionProduceData>>> groupByOwner(
            ProduceRequestData data) {
        Map<Integer, LinkedHashMap<TopicProduceData, List<PartitionProduceData>>> byOwner = new TreeMap<>();
        for (TopicProduceData topic : data.topicData()) {
            for (PartitionProduceData partition : topic.partitionData()) {
                Ownership owner = snapshot.partitionOwner(topic.name(), partition.index());
                byOwner.computeIfAbsent(owner.brokerId(), id -> new LinkedHashMap<>())
                        .computeIfAbsent(topic, t -> new ArrayList<>()).add(partition);
            }
        }
        return byOwner;
    }

    private static ProduceResponseData acknowledge(LinkedHashMap<TopicProduceData, List<PartitionProduceData>> part) {
        ProduceResponseData.TopicProduceResponseCollection topics = new ProduceResponseData.TopicProduceResponseCollection();
        part.forEach((topic, partitions) -> {
            ProduceResponseData.TopicProduceResponse response = new ProduceResponseData.TopicProduceResponse()
                    .setName(topic.name());
            for (PartitionProduceData partition : partitions) {
                response.partitionResponses().add(new PartitionProduceResponse().setIndex(partition.index())
                        .setBaseOffset(1000).setLogAppendTimeMs(-1).setLogStartOffset(0));
            }
            topics.add(response);
        });
        return new ProduceResponseData().setResponses(topics);
    }

    private static RequestFrame parse(ByteBuf frame) {
        try {
            return RequestFrame.parse(frame);
        } catch (MalformedRequestException e) {
            throw new IllegalStateException("the benchmark's own produce request header does not parse", e);
        }
    }

    private static ProduceRequestData decode(RequestFrame frame) {
        try {
            return frame.decodeBody();
        } catch (MalformedRequestException e) {
            throw new IllegalStateException("the benchmark's own produce request body does not parse", e);
        }
    }
}
