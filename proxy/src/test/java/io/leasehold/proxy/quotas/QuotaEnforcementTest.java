package io.leasehold.proxy.quotas;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.proxy.admin.ProxyMetrics;
import io.leasehold.proxy.backend.BackendConnector;
import io.leasehold.proxy.backend.BackendListener;
import io.leasehold.proxy.frontend.FrontendServer;
import io.leasehold.proxy.frontend.TestLimits;
import io.leasehold.proxy.protocol.KafkaMessages;
import io.leasehold.proxy.protocol.MalformedRequestException;
import io.leasehold.proxy.protocol.RequestFrame;
import io.leasehold.proxy.request.RequestHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.ReferenceCounted;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Quota enforcement on a real listener over raw sockets, in front of an in-test router that
 * answers Produce and Fetch itself: a client over its quota gets its answer with
 * {@code throttle_time_ms} set and is then not served for that time, and a client without a
 * quota gets its answers untouched. The quota meters run on a clock that stands still, so the
 * throttle asked for is exact: every request's bytes are divided by Kafka's 10 s minimum window.
 */
class QuotaEnforcementTest {
    private static final short PRODUCE_VERSION = 9;
    private static final short FETCH_VERSION = 12;
    private static final long THROTTLE_MS = 2_000;
    private static final MemoryRecords RECORDS = MemoryRecords.withRecords(Compression.NONE,
            new SimpleRecord(new byte[5_000]), new SimpleRecord(new byte[5_000]));

    private final EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final EventLoopGroup workers = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private FrontendServer server;
    private int port;

    /** Answers Produce with one partition acknowledged and Fetch with {@link #RECORDS}, throttle time 0. */
    private final RequestHandler router = (request, client) -> {
        try {
            ApiMessage body = request.apiKey() == ApiKeys.PRODUCE ? produceAnswer() : fetchAnswer();
            return CompletableFuture.<ReferenceCounted>completedFuture(KafkaMessages.encodeResponse(client.alloc(),
                    request.apiKey(), request.version(), request.correlationId(), body));
        } finally {
            request.release();
        }
    };

    @AfterEach
    void stop() {
        server.close();
        workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void aProducerOverItsQuotaIsToldToWaitAndItsConnectionIsNotServedMeanwhile() throws Exception {
        byte[] produce = frame(ApiKeys.PRODUCE, PRODUCE_VERSION, "slow", produceRequest());
        // The rate over the 10 s window is 20 % over the quota: Kafka's throttle is 20 % of the window.
        start("quotas:\n  - {user: ANONYMOUS, clientId: slow, producerByteRate: "
                + bodyBytes(produce) / 10.0 / 1.2 + "}\n");

        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.getOutputStream().write(produce);
            ProduceResponseData first = read(socket, ApiKeys.PRODUCE, PRODUCE_VERSION);
            long answered = System.nanoTime();
            socket.getOutputStream().write(produce);
            read(socket, ApiKeys.PRODUCE, PRODUCE_VERSION);
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - answered);

            assertThat(first.throttleTimeMs()).isBetween((int) THROTTLE_MS - 1, (int) THROTTLE_MS + 1);
            assertThat(first.responses()).hasSize(1);
            assertThat(waited).as("the next request waited out the throttle").isGreaterThan(THROTTLE_MS / 2);
        }
    }

    @Test
    void aConsumerOverItsQuotaGetsItsRecordsWithTheThrottleTime() throws Exception {
        start("quotas:\n  - {user: ANONYMOUS, clientId: slow, consumerByteRate: 100}\n");

        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.getOutputStream().write(frame(ApiKeys.FETCH, FETCH_VERSION, "slow", new FetchRequestData()));
            FetchResponseData answer = read(socket, ApiKeys.FETCH, FETCH_VERSION);

            assertThat(answer.throttleTimeMs()).isPositive();
            assertThat(((MemoryRecords) answer.responses().get(0).partitions().get(0).records()).sizeInBytes())
                    .isEqualTo(RECORDS.sizeInBytes());
        }
    }

    @Test
    void aClientWithoutAQuotaIsNeverThrottled() throws Exception {
        start("quotas:\n  - {user: ANONYMOUS, clientId: slow, producerByteRate: 1, consumerByteRate: 1}\n");

        try (Socket socket = new Socket("127.0.0.1", port)) {
            for (int i = 0; i < 3; i++) {
                socket.getOutputStream().write(frame(ApiKeys.PRODUCE, PRODUCE_VERSION, "free", produceRequest()));
                assertThat(((ProduceResponseData) read(socket, ApiKeys.PRODUCE, PRODUCE_VERSION)).throttleTimeMs())
                        .isZero();
                socket.getOutputStream().write(frame(ApiKeys.FETCH, FETCH_VERSION, "free", new FetchRequestData()));
                assertThat(((FetchResponseData) read(socket, ApiKeys.FETCH, FETCH_VERSION)).throttleTimeMs())
                        .isZero();
            }
        }
    }

    private void start(String quotasFile) throws Exception {
        QuotaRules rules = new QuotasFileParser().parse(quotasFile, "quotas.yaml");
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        ClientQuotas quotas = new ClientQuotas(() -> rules, new TierShare(() -> 1), () -> 0L,
                new QuotaMetrics(registry), new QuotaWindow(11, Duration.ofSeconds(1)));
        server = FrontendServer.builder("127.0.0.1", 0, boss, workers, new QuotaEnforcement(router, quotas),
                        BackendConnector.builder(new BackendConnector.Settings(Duration.ofSeconds(1),
                                Duration.ofSeconds(1), Duration.ofSeconds(1), 1 << 20), new BackendListener() { })
                                .build(),
                        new ProxyMetrics(registry), TestLimits.builder().maxFrameBytes(1 << 20).idleTimeout(Duration.ofSeconds(10))
                                .tlsHandshakeTimeout(Duration.ofSeconds(10)).build())
                .build();
        port = server.start().getPort();
    }

    private static ProduceRequestData produceRequest() {
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(new ProduceRequestData.TopicProduceData().setName("t").setPartitionData(List.of(
                new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(RECORDS))));
        return new ProduceRequestData().setAcks((short) 1).setTimeoutMs(1000).setTopicData(topics);
    }

    private static ProduceResponseData produceAnswer() {
        ProduceResponseData.TopicProduceResponseCollection topics =
                new ProduceResponseData.TopicProduceResponseCollection();
        topics.add(new ProduceResponseData.TopicProduceResponse().setName("t").setPartitionResponses(List.of(
                new ProduceResponseData.PartitionProduceResponse().setIndex(0).setBaseOffset(0))));
        return new ProduceResponseData().setResponses(topics);
    }

    private static FetchResponseData fetchAnswer() {
        return new FetchResponseData().setResponses(List.of(new FetchResponseData.FetchableTopicResponse()
                .setTopic("t").setPartitions(List.of(new FetchResponseData.PartitionData().setPartitionIndex(0)
                        .setHighWatermark(2).setRecords(RECORDS)))));
    }

    /** A length-prefixed request. */
    private static byte[] frame(ApiKeys api, short version, String clientId, ApiMessage body) {
        ByteBuf request = KafkaMessages.encodeRequest(ByteBufAllocator.DEFAULT, api, version, clientId, body);
        try {
            byte[] bytes = new byte[request.readableBytes()];
            request.getBytes(request.readerIndex(), bytes);
            return ByteBuffer.allocate(4 + bytes.length).putInt(bytes.length).put(bytes).array();
        } finally {
            request.release();
        }
    }

    /** The body bytes of a length-prefixed request, which a Produce counts against its quota. */
    private static int bodyBytes(byte[] frame) throws MalformedRequestException {
        RequestFrame request = RequestFrame.parse(Unpooled.wrappedBuffer(frame, 4, frame.length - 4));
        try {
            return request.body().remaining();
        } finally {
            request.release();
        }
    }

    private static <T extends ApiMessage> T read(Socket socket, ApiKeys api, short version) throws IOException {
        DataInputStream in = new DataInputStream(socket.getInputStream());
        byte[] bytes = new byte[in.readInt()];
        in.readFully(bytes);
        return KafkaMessages.decodeResponse(Unpooled.wrappedBuffer(bytes), api, version);
    }
}
