package io.leasehold.proxy.frontend;

import static io.leasehold.proxy.frontend.KafkaWire.apiVersionsRequest;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.leasehold.proxy.request.MemoryBudget;
import io.leasehold.proxy.request.RequestHandler;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.ReferenceCounted;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * {@code limits.requestDeadline}: a request its handler never answers (a fault, such as a shared
 * future that never completes) closes its connection at the deadline and gives back the memory
 * budget its frame held; an answer that turns up later is released, not written.
 */
class RequestDeadlineTest {
    private static final Duration DEADLINE = Duration.ofMillis(300);

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final MemoryBudget budget = new MemoryBudget(1 << 20);

    private static FrontendServer.Limits limits() {
        return FrontendServer.Limits.builder().maxFrameBytes(1024).maxConnections(2)
                .idleTimeout(Duration.ofSeconds(30)).maxInFlightPerConnection(4)
                .tlsHandshakeTimeout(Duration.ofSeconds(10)).requestDeadline(DEADLINE).build();
    }

    private double timedOut() {
        Counter counter = registry.find("leasehold.client.connections.timed.out").tag("reason", "request_deadline")
                .counter();
        return counter == null ? 0 : counter.count();
    }

    @Test
    void aRequestNeverAnsweredClosesItsConnectionAndGivesBackItsMemory() throws Exception {
        RequestHandler neverAnswers = (request, client) -> {
            request.release();
            return new CompletableFuture<>();
        };
        try (LoopbackListener listener = new LoopbackListener(neverAnswers, registry, limits(), budget);
             Socket client = new Socket("127.0.0.1", listener.port())) {
            client.getOutputStream().write(apiVersionsRequest(1));

            await().atMost(Duration.ofSeconds(20)).until(() -> timedOut() == 1);
            assertThat(KafkaWire.closedByServer(client)).as("closed at the request's deadline").isTrue();
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(budget.used())
                    .as("the frame's memory given back").isZero());
            assertThat(listener.server().drain(Duration.ofSeconds(5)))
                    .as("its in-flight slot given back: a drain does not wait for it").isTrue();
        }
    }

    @Test
    void anAnswerArrivingAfterTheDeadlineIsReleased() throws Exception {
        CompletableFuture<ReferenceCounted> late = new CompletableFuture<>();
        RequestHandler answersLate = (request, client) -> {
            request.release();
            return late;
        };
        ByteBuf answer = Unpooled.buffer().writeInt(1);
        try (LoopbackListener listener = new LoopbackListener(answersLate, registry, limits(), budget);
             Socket client = new Socket("127.0.0.1", listener.port())) {
            client.getOutputStream().write(apiVersionsRequest(1));
            await().atMost(Duration.ofSeconds(20)).until(() -> timedOut() == 1);

            late.complete(answer);

            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(answer.refCnt())
                    .as("released by the proxy").isZero());
            assertThat(KafkaWire.closedByServer(client)).isTrue();
            assertThat(budget.used()).isZero();
        }
    }
}
