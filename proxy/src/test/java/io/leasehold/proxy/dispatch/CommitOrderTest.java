package io.leasehold.proxy.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** {@link CommitOrder}: which commits of a connection wait for which. */
class CommitOrderTest {

    @Test
    void aLaterCommitOfTheSameGroupStartsOnlyWhenTheEarlierHasFinished() {
        CommitOrder order = new CommitOrder();
        List<String> started = new ArrayList<>();
        CompletableFuture<String> earlierAnswer = new CompletableFuture<>();

        CompletableFuture<String> earlier = order.after("payments", () -> {
            started.add("earlier");
            return earlierAnswer;
        });
        CompletableFuture<String> later = order.after("payments", () -> {
            started.add("later");
            return CompletableFuture.completedFuture("second");
        });

        assertThat(started).containsExactly("earlier");
        earlierAnswer.complete("first");
        assertThat(started).containsExactly("earlier", "later");
        assertThat(earlier).isCompletedWithValue("first");
        assertThat(later).isCompletedWithValue("second");
        assertThat(order.unfinishedGroups()).isZero();
    }

    @Test
    void aCommitOfAnotherGroupDoesNotWait() {
        CommitOrder order = new CommitOrder();
        order.after("payments", CompletableFuture::new);

        CompletableFuture<String> other = order.after("billing", () -> CompletableFuture.completedFuture("done"));

        assertThat(other).isCompletedWithValue("done");
        assertThat(order.unfinishedGroups()).isEqualTo(1);
    }

    @Test
    void aFailedCommitStillLetsTheNextOneStart() {
        CommitOrder order = new CommitOrder();
        CompletableFuture<String> failed = order.after("payments", () -> {
            throw new IllegalStateException("broker answer unreadable");
        });

        CompletableFuture<String> next = order.after("payments", () -> CompletableFuture.completedFuture("done"));

        assertThat(failed).isCompletedExceptionally();
        assertThat(next).isCompletedWithValue("done");
    }
}
