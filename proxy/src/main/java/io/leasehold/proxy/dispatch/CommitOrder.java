package io.leasehold.proxy.dispatch;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Keeps one client connection's OffsetCommits for a group in the order the client sent them. The
 * proxy retries a commit the coordinator rejected (NOT_COORDINATOR, REQUEST_TIMED_OUT); were a
 * later commit of the same group sent meanwhile, the retried, older offsets could land last and
 * move the group back. So a commit starts only once every earlier commit of its connection for
 * that group has finished, retries included. Commits of different groups do not wait for each
 * other. Safe to use from any thread (its callbacks run on the connection's backend loop).
 */
final class CommitOrder {
    /** Per group, the latest commit's end; a commit arriving now starts after it. */
    private final Map<String, CompletableFuture<Void>> latest = new HashMap<>();

    /**
     * Starts {@code commit} for {@code group} once the connection's earlier commits for it have
     * finished (at once if none is unfinished).
     */
    <T> CompletableFuture<T> after(String group, Supplier<CompletableFuture<T>> commit) {
        CompletableFuture<Void> finished = new CompletableFuture<>();
        CompletableFuture<Void> earlier;
        synchronized (this) {
            earlier = latest.put(group, finished);
        }
        CompletableFuture<T> result = earlier == null ? start(commit) : earlier.thenCompose(done -> start(commit));
        result.whenComplete((answer, error) -> {
            synchronized (this) {
                latest.remove(group, finished);
            }
            finished.complete(null);
        });
        return result;
    }

    /** Groups with an unfinished commit (for tests and diagnostics). */
    synchronized int unfinishedGroups() {
        return latest.size();
    }

    private static <T> CompletableFuture<T> start(Supplier<CompletableFuture<T>> commit) {
        try {
            return commit.get();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }
}
