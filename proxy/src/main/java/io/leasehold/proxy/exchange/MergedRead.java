package io.leasehold.proxy.exchange;

import java.time.Duration;

/**
 * The capability of a read whose brokers long-poll (Fetch): split over several owners, each
 * part gets a share of the client's limits, and the merged answer may go once enough data is in,
 * without waiting for the owners still polling.
 *
 * @param <Q> request data class
 * @param <P> response partition element
 */
public interface MergedRead<Q, P> {

    /**
     * How many bytes of data let a merged answer go without waiting for the brokers still
     * polling; 0 if a merged answer waits for every broker.
     */
    int answerAfterBytes(Q request);

    /** The data {@code result} brings towards {@link #answerAfterBytes}. */
    int dataBytes(P result);

    /**
     * How long a merged read's attempt, starting {@code elapsed} after the request arrived, waits
     * for its brokers before it is answered with what is in (only asked when
     * {@link #answerAfterBytes} is positive).
     */
    Duration mergedAnswerDeadline(Q request, Duration elapsed);

    /**
     * Gives a sub-request its share of the client's limits: it carries {@code partitions} of the
     * {@code total} partitions sent out at once, and {@code elapsed} has passed since the request
     * arrived.
     */
    void share(Q subRequest, int partitions, int total, Duration elapsed);
}
