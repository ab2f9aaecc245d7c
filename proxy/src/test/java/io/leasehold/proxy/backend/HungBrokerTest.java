package io.leasehold.proxy.backend;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** A broker that stops answering: the request that times out takes its connection with it. */
class HungBrokerTest {

    @Test
    void requestThatTimesOutClosesTheConnectionAndFailsWhatWasQueuedBehindIt() {
        try (EmbeddedBackend broker = new EmbeddedBackend(1 << 20)) {
            CompletableFuture<ByteBuf> hung = broker.send(Duration.ofMillis(200));
            CompletableFuture<ByteBuf> queuedBehind = broker.send(Duration.ofSeconds(30));

            broker.timePasses(Duration.ofMillis(300));

            assertThat(hung).isCompletedExceptionally();
            Throwable cause = hung.handle((r, e) -> e instanceof CompletionException ? e.getCause() : e).join();
            assertThat(cause).isInstanceOf(BackendOutcomeUnknownException.class)
                    .hasMessageContaining("did not answer within 200 ms");
            assertThat(((BackendOutcomeUnknownException) cause).timedOut()).isTrue();
            assertThat(broker.isOpen()).as("connection to the hung broker").isFalse();
            assertThat(queuedBehind).as("request queued behind the hung one").isCompletedExceptionally();
        }
    }

    @Test
    void requestsWithinTheirDeadlineKeepTheConnection() {
        try (EmbeddedBackend broker = new EmbeddedBackend(1 << 20)) {
            CompletableFuture<ByteBuf> waiting = broker.send(Duration.ofSeconds(5));

            broker.timePasses(Duration.ofSeconds(2));

            assertThat(waiting).isNotDone();
            assertThat(broker.isOpen()).isTrue();
        }
    }
}
