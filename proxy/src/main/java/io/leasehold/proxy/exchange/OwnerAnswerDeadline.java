package io.leasehold.proxy.exchange;

import io.leasehold.proxy.admin.ProxyMetrics;
import io.leasehold.proxy.backend.SilentBrokers;
import io.leasehold.routing.snapshot.BrokerAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * One write's owner-answer deadline (see {@link OrderedWrites#ownerAnswerDeadline}): how long an
 * owner may leave its part unanswered before the rest of the request is answered without it,
 * and which owners are known silent meanwhile, so nothing more queues at them; it also ends
 * the retries of an owner that cannot be reached. Without a deadline every owner's answer is
 * awaited and no owner is ever taken for silent.
 */
final class OwnerAnswerDeadline {
    private final Duration deadline;
    private final SilentBrokers silent;
    private final ProxyMetrics metrics;

    /** @param deadline null for none */
    OwnerAnswerDeadline(Duration deadline, SilentBrokers silent, ProxyMetrics metrics) {
        this.deadline = deadline;
        this.silent = silent;
        this.metrics = metrics;
    }

    /** True if {@code broker}'s partitions are answered at once, unsent: it left an earlier part unanswered. */
    boolean answeredWithout(BrokerAddress broker, int partitions) {
        if (deadline == null || !silent.isSilent(broker)) {
            return false;
        }
        metrics.produceAnsweredWithoutOwner("silent", partitions);
        return true;
    }

    /** True if the deadline ends the wait for an owner sooner than {@code limit} (null: no limit) does. */
    boolean bounds(Duration limit) {
        return deadline != null && (limit == null || deadline.compareTo(limit) < 0);
    }

    Duration deadline() {
        return deadline;
    }

    /**
     * True once a write started at {@code startNanos} (on {@link System#nanoTime()}'s clock) is
     * past the deadline: an owner that cannot be reached is then no longer retried for it, just
     * as a silent one is no longer waited for.
     */
    boolean passed(long startNanos) {
        return deadline != null && System.nanoTime() - startNanos >= deadline.toNanos();
    }

    /**
     * Once the wait for {@code answer} ends while it is still pending on the owner's connection,
     * takes {@code broker} for silent until that answer (or the connection's end) shows it is
     * back; counts the partitions answered without it when the deadline ended the wait.
     *
     * @param bounded the wait, bounded by the deadline when {@code deadlineBound}
     */
    void watch(CompletableFuture<?> bounded, CompletableFuture<?> answer, BrokerAddress broker, int partitions,
               boolean deadlineBound) {
        if (deadline == null) {
            return;
        }
        bounded.whenComplete((result, error) -> {
            if (error != null && !answer.isDone()) {
                silent.silentUntil(broker, answer);
                if (deadlineBound) {
                    metrics.produceAnsweredWithoutOwner("deadline", partitions);
                }
            }
        });
    }
}
