package io.leasehold.proxy.frontend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.leasehold.proxy.protocol.KafkaMessages;
import io.leasehold.proxy.protocol.RequestFrame;
import io.leasehold.proxy.request.RequestHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ReferenceCounted;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A connection stops being read while its in-flight limit is reached, and resumes when answers
 * go out or, for requests that get no answer (acks=0 produce), when their work is done.
 */
class FrontendBackpressureTest {
    private static final int MAX_IN_FLIGHT = 4;
    private static final int REQUESTS = 100;
    /** Each request carries a 16 KiB client id, so a single socket read holds only a few of them. */
    private static final String LONG_CLIENT_ID = "c".repeat(16 * 1024);

    private final List<CompletableFuture<ReferenceCounted>> held = Collections.synchronizedList(new ArrayList<>());
    private final List<RequestFrame> requests = Collections.synchronizedList(new ArrayList<>());
    /** Work of requests answered with nothing, which goes on after the (empty) answer. */
    private final List<CompletableFuture<Void>> unanswered = Collections.synchronizedList(new ArrayList<>());
    private volatile RequestHandler handler;
    private LoopbackListener listener;
    private int port;

    @BeforeEach
    void start() throws InterruptedException {
        handler = (request, client) -> {
            CompletableFuture<ReferenceCounted> answer = new CompletableFuture<>();
            requests.add(request);
            held.add(answer);
            return answer;
        };
        listener = new LoopbackListener((request, client) -> handler.handle(request, client), new SimpleMeterRegistry(),
                FrontendServer.Limits.builder().maxFrameBytes(1 << 20).maxConnections(10)
                        .idleTimeout(Duration.ofSeconds(30)).maxInFlightPerConnection(MAX_IN_FLIGHT)
                        .tlsHandshakeTimeout(Duration.ofSeconds(10)).build());
        port = listener.port();
    }

    @AfterEach
    void stop() {
        listener.close();
        synchronized (requests) {
            requests.forEach(RequestFrame::release);
        }
    }

    private static byte[] apiVersionsFrame(int correlationId) {
        ByteBuf request = KafkaMessages.encodeRequest(ByteBufAllocator.DEFAULT, ApiKeys.API_VERSIONS, (short) 0,
                LONG_CLIENT_ID, new ApiVersionsRequestData());
        try {
            KafkaMessages.withRequestCorrelationId(request, correlationId);
            int length = request.readableBytes();
            byte[] bytes = new byte[4 + length];
            request.getBytes(request.readerIndex(), bytes, 4, length);
            bytes[0] = (byte) (length >>> 24);
            bytes[1] = (byte) (length >>> 16);
            bytes[2] = (byte) (length >>> 8);
            bytes[3] = (byte) length;
            return bytes;
        } finally {
            request.release();
        }
    }

    private void answerOldestHeld() {
        int index;
        synchronized (held) {
            index = (int) held.stream().filter(CompletableFuture::isDone).count();
        }
        RequestFrame request = requests.get(index);
        held.get(index).complete(KafkaMessages.encodeResponse(ByteBufAllocator.DEFAULT, ApiKeys.API_VERSIONS,
                (short) 0, request.correlationId(), new ApiVersionsResponseData()));
    }

    private static Thread sendAll(Socket socket) {
        Thread writer = new Thread(() -> {
            try {
                for (int i = 0; i < REQUESTS; i++) {
                    socket.getOutputStream().write(apiVersionsFrame(i));
                }
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        writer.start();
        return writer;
    }

    @Test
    void stopsReadingAtTheInFlightLimitAndResumesAsAnswersLeave() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            Thread writer = sendAll(socket);
            await().atMost(Duration.ofSeconds(5)).until(() -> held.size() >= MAX_IN_FLIGHT);
            // Reading has stopped: beyond the limit, only what one socket read had already
            // brought in is handled, far from everything the client sent.
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(3))
                    .until(() -> held.size() < REQUESTS / 4);

            DataInputStream in = new DataInputStream(socket.getInputStream());
            for (int expected = 0; expected < REQUESTS; expected++) {
                int next = expected;
                await().pollInterval(Duration.ofMillis(2)).atMost(Duration.ofSeconds(5)).until(() -> held.size() > next);
                answerOldestHeld();
                int length = in.readInt();
                assertThat(in.readInt()).as("answers in request order").isEqualTo(expected);
                in.skipNBytes(length - 4);
            }
            writer.join(5_000);
        }
    }

    @Test
    void tinyRequestsReadInOneGoWaitBeyondTheInFlightLimitInsteadOfRunningAtOnce() throws Exception {
        int tiny = 2_000;
        ByteArrayOutputStream burst = new ByteArrayOutputStream();
        for (int i = 0; i < tiny; i++) {
            burst.write(KafkaWire.apiVersionsRequest(i));
        }
        try (Socket socket = new Socket("127.0.0.1", port)) {
            // About 40 KB of frames: a few socket reads bring in hundreds of requests each.
            socket.getOutputStream().write(burst.toByteArray());
            await().atMost(Duration.ofSeconds(5)).until(() -> held.size() >= MAX_IN_FLIGHT);
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(3))
                    .until(() -> held.size() == MAX_IN_FLIGHT);

            DataInputStream in = new DataInputStream(socket.getInputStream());
            for (int expected = 0; expected < tiny; expected++) {
                int next = expected;
                await().pollInterval(Duration.ofMillis(1)).atMost(Duration.ofSeconds(5)).until(() -> held.size() > next);
                assertThat(held.size() - expected).as("requests in progress at once").isLessThanOrEqualTo(MAX_IN_FLIGHT);
                answerOldestHeld();
                int length = in.readInt();
                assertThat(in.readInt()).as("answers in request order").isEqualTo(expected);
                in.skipNBytes(length - 4);
            }
        }
    }

    @Test
    void unansweredRequestsCountAgainstTheInFlightLimitUntilTheirWorkIsDone() throws Exception {
        handler = (request, client) -> {
            requests.add(request);
            CompletableFuture<Void> work = new CompletableFuture<>();
            unanswered.add(work);
            client.work().track(work);
            return CompletableFuture.completedFuture(null);
        };
        try (Socket socket = new Socket("127.0.0.1", port)) {
            Thread writer = sendAll(socket);
            await().atMost(Duration.ofSeconds(5)).until(() -> unanswered.size() >= MAX_IN_FLIGHT);
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(3))
                    .until(() -> unanswered.size() < REQUESTS / 4);

            for (int done = 0; done < REQUESTS; done++) {
                int next = done;
                await().pollInterval(Duration.ofMillis(2)).atMost(Duration.ofSeconds(5))
                        .until(() -> unanswered.size() > next);
                unanswered.get(done).complete(null);
            }
            writer.join(5_000);
            assertThat(unanswered).hasSize(REQUESTS);
        }
    }
}
