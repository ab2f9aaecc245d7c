package io.leasehold.proxy.frontend;

import static io.leasehold.proxy.frontend.KafkaWire.apiVersionsRequest;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.leasehold.proxy.protocol.KafkaMessages;
import io.leasehold.proxy.request.MemoryBudget;
import io.leasehold.proxy.request.RequestHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ReferenceCounted;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The proxy-wide memory budget: once the requests read (and half-read) use it up, no client
 * connection is read, not even a new one; answers give the bytes back and every connection
 * reads again.
 */
class MemoryBudgetBackpressureTest {
    private static final int BUDGET = 64 * 1024;
    /** A 16 KiB client id makes each request about 16 KiB: four of them use up the budget. */
    private static final String LONG_CLIENT_ID = "c".repeat(16 * 1024);
    private static final int HELD = 8;
    private static final int SHORT_REQUEST = 1000;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final MemoryBudget budget = new MemoryBudget(BUDGET);
    private final List<Runnable> held = Collections.synchronizedList(new ArrayList<>());
    private LoopbackListener listener;
    private int port;

    @BeforeEach
    void start() throws InterruptedException {
        RequestHandler handler = (request, client) -> {
            if (request.correlationId() >= SHORT_REQUEST) {
                return KafkaWire.ANSWER_EVERYTHING.handle(request, client);
            }
            CompletableFuture<ReferenceCounted> answer = new CompletableFuture<>();
            held.add(() -> answer.complete(KafkaWire.ANSWER_EVERYTHING.handle(request, client).join()));
            return answer;
        };
        listener = new LoopbackListener(handler, registry, FrontendServer.Limits.builder()
                .maxFrameBytes(1 << 20).maxConnections(10).idleTimeout(Duration.ofSeconds(30)).maxInFlightPerConnection(64)
                .tlsHandshakeTimeout(Duration.ofSeconds(10)).build(), budget);
        port = listener.port();
    }

    @AfterEach
    void stop() {
        List<Runnable> left;
        synchronized (held) {
            left = new ArrayList<>(held);
        }
        left.forEach(Runnable::run);
        listener.close();
    }

    private static byte[] largeRequest(int correlationId) {
        ByteBuf request = KafkaMessages.encodeRequest(ByteBufAllocator.DEFAULT, ApiKeys.API_VERSIONS, (short) 0,
                LONG_CLIENT_ID, new ApiVersionsRequestData());
        try {
            KafkaMessages.withRequestCorrelationId(request, correlationId);
            byte[] body = new byte[request.readableBytes()];
            request.getBytes(request.readerIndex(), body);
            return KafkaWire.lengthThen(body.length, body);
        } finally {
            request.release();
        }
    }

    private double pauses() {
        return registry.get("leasehold.memory.budget.pauses").functionCounter().count();
    }

    @Test
    void noConnectionIsReadWhileTheBudgetIsUsedUpUntilAnswersGiveTheBytesBack() throws Exception {
        try (Socket heavy = new Socket("127.0.0.1", port); Socket other = new Socket("127.0.0.1", port)) {
            OutputStream out = heavy.getOutputStream();
            for (int i = 0; i < HELD; i++) {
                out.write(largeRequest(i));
            }
            out.flush();
            await().atMost(Duration.ofSeconds(10)).until(budget::exhausted);
            int heldWhenExhausted = held.size();
            assertThat(heldWhenExhausted).as("requests read before reading paused").isGreaterThanOrEqualTo(4);

            other.setSoTimeout(1500);
            other.getOutputStream().write(apiVersionsRequest(SHORT_REQUEST));
            try {
                other.getInputStream().read();
                throw new AssertionError("another connection was read and answered while the budget was used up");
            } catch (SocketTimeoutException notRead) {
                assertThat(budget.exhausted()).isTrue();
            }
            try (Socket fresh = new Socket("127.0.0.1", port)) {
                fresh.setSoTimeout(1500);
                fresh.getOutputStream().write(apiVersionsRequest(SHORT_REQUEST + 1));
                try {
                    fresh.getInputStream().read();
                    throw new AssertionError("a new connection was read while the budget was used up");
                } catch (SocketTimeoutException notRead) {
                    assertThat(budget.exhausted()).isTrue();
                }
            }

            answerEverythingHeldUntil(HELD);
            other.setSoTimeout(10_000);
            DataInputStream in = new DataInputStream(other.getInputStream());
            in.readInt();
            assertThat(in.readInt()).as("answered once the budget had room again").isEqualTo(SHORT_REQUEST);
            DataInputStream heavyIn = new DataInputStream(heavy.getInputStream());
            heavy.setSoTimeout(10_000);
            for (int i = 0; i < HELD; i++) {
                int length = heavyIn.readInt();
                assertThat(heavyIn.readInt()).isEqualTo(i);
                heavyIn.skipNBytes(length - 4);
            }
        }
        assertThat(pauses()).isGreaterThanOrEqualTo(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> budget.used() == 0);
        assertThat(registry.get("leasehold.memory.budget.limit").gauge().value()).isEqualTo(BUDGET);
    }

    /** Answers held requests as they arrive until {@code count} were answered. */
    private void answerEverythingHeldUntil(int count) {
        int answered = 0;
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (answered < count && System.nanoTime() < deadline) {
            Runnable next = null;
            synchronized (held) {
                if (!held.isEmpty()) {
                    next = held.remove(0);
                }
            }
            if (next != null) {
                next.run();
                answered++;
            } else {
                Thread.onSpinWait();
            }
        }
        assertThat(answered).as("held requests answered").isEqualTo(count);
    }

    @Test
    void bytesOfAHalfSentFrameCountUntilTheConnectionCloses() throws IOException {
        try (Socket half = new Socket("127.0.0.1", port)) {
            half.getOutputStream().write(KafkaWire.lengthThen(32 * 1024, new byte[20_000]));
            await().atMost(Duration.ofSeconds(10)).until(() -> budget.used() >= 20_000);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> budget.used() == 0);
    }
}
