package io.leasehold.proxy.exchange;

/**
 * The capability of a read whose answer is followed by reads ahead of the positions the client
 * asks next (Fetch): the exchange asks the owners that answered for the next data before the
 * client does, and a later request finds it waiting.
 *
 * @param <Q> request data class
 * @param <E> request partition element
 * @param <P> response partition element
 */
public interface ReadsAhead<Q, E, P> {

    /** The position {@code partition} asks to read from. */
    long position(E partition);

    /** The position a client asks for next once it has {@code result}; -1 if that is not known. */
    long nextPosition(P result);

    /** {@code partition} asking to read from {@code position} instead. */
    E atPosition(E partition, long position);

    /** What else of {@code request} than positions its answer depends on: a read ahead serves only requests alike. */
    Object readAheadKind(Q request);

    /** Turns {@code subRequest} into a read ahead: answered at once with whatever there is. */
    void readingAhead(Q subRequest);
}
