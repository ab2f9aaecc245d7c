package io.leasehold.proxy.frontend;

import io.netty.util.ReferenceCountUtil;
import io.netty.util.ReferenceCounted;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * One request's answer as its connection awaits it: settled exactly once, on the connection's
 * event loop, by the handler's answer or, if that has not come within the deadline, by a
 * {@link RequestDeadlineException}. Whatever the handler does (an answer that never comes
 * included), the connection thus gets its frame's memory and in-flight slot back in time; an
 * answer arriving after the deadline is released here.
 */
final class PendingAnswer {
    private final BiConsumer<ReferenceCounted, Throwable> settle;
    private ScheduledFuture<?> deadline;
    private boolean settled;

    private PendingAnswer(BiConsumer<ReferenceCounted, Throwable> settle) {
        this.settle = settle;
    }

    /**
     * Awaits {@code answer}, calling {@code settle} once on {@code loop} with the answer (its
     * ownership passed on) or the failure.
     *
     * @param limit how long the answer may take; null for no bound
     */
    static void await(CompletableFuture<ReferenceCounted> answer, Duration limit, EventExecutor loop,
                      BiConsumer<ReferenceCounted, Throwable> settle) {
        PendingAnswer pending = new PendingAnswer(settle);
        if (limit != null && !answer.isDone()) {
            pending.deadline = loop.schedule(() -> pending.settle(null, new RequestDeadlineException(limit)),
                    limit.toNanos(), TimeUnit.NANOSECONDS);
        }
        answer.whenComplete((response, error) -> LoopHandoff.run(loop, () -> pending.settle(response, error),
                response));
    }

    private void settle(ReferenceCounted response, Throwable error) {
        if (settled) {
            ReferenceCountUtil.release(response);
            return;
        }
        settled = true;
        if (deadline != null) {
            deadline.cancel(false);
        }
        settle.accept(response, error);
    }

    /** A request the handler did not answer within its deadline. */
    static final class RequestDeadlineException extends RuntimeException {
        RequestDeadlineException(Duration limit) {
            super("not answered within limits.requestDeadline (" + limit.toMillis() + " ms)", null, false, false);
        }
    }
}
