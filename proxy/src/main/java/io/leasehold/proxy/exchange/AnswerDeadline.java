package io.leasehold.proxy.exchange;

import io.leasehold.proxy.backend.BackendOutcomeUnknownException;
import io.netty.channel.EventLoop;
import io.netty.util.ReferenceCounted;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Stops waiting for one backend answer earlier than the connection's request timeout: after a
 * limit (a long-polled read whose broker hangs is then answered by another broker), or once a
 * condition saying the answer no longer matters has held for a grace period (a write whose owner
 * lost the partition can no longer commit, so its outcome is settled; a live owner's answer, a
 * certain rejection, normally arrives within the grace). Either way the result is an unknown
 * outcome. The request stays pending on its connection; an answer that arrives later is released
 * here.
 */
final class AnswerDeadline {
    /** How often {@code settled} is checked. */
    private static final long CHECK_EVERY_MILLIS = 100;

    private AnswerDeadline() {
    }

    /**
     * {@code answer}, or an unknown outcome once {@code limit} has passed (null: no limit) or
     * {@code settled} has held for {@code grace} (null: never).
     */
    static <X extends ReferenceCounted> CompletableFuture<X> bound(CompletableFuture<X> answer, Duration limit,
                                                                  BooleanSupplier settled, Duration grace,
                                                                  EventLoop loop) {
        if (limit == null && settled == null) {
            return answer;
        }
        CompletableFuture<X> bounded = new CompletableFuture<>();
        long endNanos = limit == null ? Long.MAX_VALUE : System.nanoTime() + limit.toNanos();
        long[] settledSince = {Long.MAX_VALUE};
        ScheduledFuture<?> checks = loop.scheduleAtFixedRate(() -> {
            long now = System.nanoTime();
            if (limit != null && now - endNanos >= 0) {
                bounded.completeExceptionally(new BackendOutcomeUnknownException(
                        "no answer within " + limit.toMillis() + " ms", true));
            } else if (settled != null && settled.getAsBoolean()) {
                settledSince[0] = Math.min(settledSince[0], now);
                if (now - settledSince[0] >= grace.toNanos()) {
                    bounded.completeExceptionally(new BackendOutcomeUnknownException(
                            "the owner lost the partition while the answer was awaited", true));
                }
            }
        }, firstCheck(limit), CHECK_EVERY_MILLIS, TimeUnit.MILLISECONDS);
        bounded.whenComplete((r, e) -> checks.cancel(false));
        answer.whenComplete((result, error) -> {
            if (error != null) {
                bounded.completeExceptionally(error);
            } else if (!bounded.complete(result)) {
                result.release();
            }
        });
        return bounded;
    }

    private static long firstCheck(Duration limit) {
        return limit == null ? CHECK_EVERY_MILLIS : Math.min(CHECK_EVERY_MILLIS, limit.toMillis());
    }
}
