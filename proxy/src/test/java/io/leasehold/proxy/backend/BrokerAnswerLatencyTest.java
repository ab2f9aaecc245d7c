package io.leasehold.proxy.backend;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;

/**
 * A broker connection tells its listener of every answer, with the broker and the API, which
 * the proxy publishes as {@code leasehold_backend_request_latency_seconds{broker,api}}; a
 * request that gets no answer is not an answer (it counts as a backend failure instead).
 */
class BrokerAnswerLatencyTest {

    private final List<String> answers = new ArrayList<>();
    private final BackendListener listener = new BackendListener() {
        @Override
        public void answered(int brokerId, ApiKeys api, long nanos) {
            answers.add(brokerId + " " + api + (nanos >= 0 ? "" : " negative"));
        }
    };

    @Test
    void aWholeAnswerIsReportedWithItsBrokerAndApi() {
        try (EmbeddedBackend broker = new EmbeddedBackend(1 << 20, listener)) {
            CompletableFuture<ByteBuf> answer = broker.send();
            assertThat(answers).as("not before the answer").isEmpty();

            broker.brokerSends(EmbeddedBackend.responseFrame(broker.lastCorrelationId(), new byte[16]));

            assertThat(answer).isDone();
            answer.join().release();
            assertThat(answers).containsExactly(EmbeddedBackend.BROKER_ID + " " + ApiKeys.API_VERSIONS);
        }
    }

    @Test
    void aStreamedAnswerIsReportedWhenItsFirstBytesArrive() {
        try (EmbeddedBackend broker = new EmbeddedBackend(1 << 20, listener)) {
            CompletableFuture<ResponseStream> answer = broker.sendStreaming();
            byte[] frame = ByteBufUtil.getBytes(EmbeddedBackend.responseFrame(broker.lastCorrelationId(), new byte[3000]));

            broker.brokerSends(Unpooled.wrappedBuffer(frame, 0, 1000));

            assertThat(answer).isDone();
            assertThat(answers).containsExactly(EmbeddedBackend.BROKER_ID + " " + ApiKeys.API_VERSIONS);
            answer.join().close();
        }
    }

    @Test
    void aRequestLeftUnansweredPastItsDeadlineIsNoAnswer() {
        try (EmbeddedBackend broker = new EmbeddedBackend(1 << 20, listener)) {
            CompletableFuture<ByteBuf> answer = broker.send(Duration.ofSeconds(1));
            broker.lastCorrelationId();

            broker.timePasses(Duration.ofSeconds(2));

            assertThat(answer).isCompletedExceptionally();
            assertThat(answers).isEmpty();
        }
    }
}
