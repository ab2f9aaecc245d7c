package io.leasehold.proxy.exchange;

import java.time.Duration;

/**
 * The capability of a write (Produce): one connection's requests for a partition reach its
 * owner in order, a sub-request's own timeout follows the exchange's budget, and an owner that
 * stays silent may be answered for.
 *
 * @param <Q> request data class
 */
public interface OrderedWrites<Q> {

    /** Lowers a sub-request's own timeout to what is left of the exchange's budget. */
    void limitTimeout(Q subRequest, int remainingMillis);

    /** True if the request goes on after its client hung up (it never expected an answer: acks=0). */
    boolean continuesWithoutClient(Q request);

    /**
     * For a write split over owners that share one client connection (the single-node
     * presentation): how long one owner may leave its part unanswered before the other owners'
     * partitions are answered without it, its own with an unknown outcome, and the owner is
     * known silent; while it is, its partitions are answered at once with the rejection instead
     * of being sent. Null: an owner's answer is awaited as long as the attempt timeout allows.
     */
    Duration ownerAnswerDeadline(Q request);
}
