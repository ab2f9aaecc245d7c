package io.leasehold.proxy.routing;

import io.leasehold.proxy.backend.BackendOutcomeUnknownException;
import io.netty.channel.EventLoop;
import io.netty.util.ReferenceCounted;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Gives up waiting for one backend answer after a limit shorter than the connection's request
 * timeout: a long-polled read whose broker hangs is answered from another broker instead of
 * after 30 s. The request stays pending on its connection; an answer that arrives after the
 * limit is released here.
 */
final class AnswerDeadline {
    private AnswerDeadline() {
    }

    /** {@code answer}, or an unknown outcome (timed out) once {@code limit} has passed. */
    static <X extends ReferenceCounted> CompletableFuture<X> bound(CompletableFuture<X> answer, Duration limit,
                                                                  EventLoop loop) {
        CompletableFuture<X> bounded = new CompletableFuture<>();
        ScheduledFuture<?> timer = loop.schedule(() -> {
            bounded.completeExceptionally(new BackendOutcomeUnknownException(
                    "no answer within " + limit.toMillis() + " ms", true));
        }, limit.toMillis(), TimeUnit.MILLISECONDS);
        answer.whenComplete((result, error) -> {
            timer.cancel(false);
            if (error != null) {
                bounded.completeExceptionally(error);
            } else if (!bounded.complete(result)) {
                result.release();
            }
        });
        return bounded;
    }
}
