package io.leasehold.proxy.exchange;

import io.leasehold.proxy.backend.ResponseInspector;
import org.apache.kafka.common.Uuid;

/**
 * The capability of an API whose single-owner response is streamed to the client while it
 * arrives, without being decoded (Fetch).
 */
public interface StreamedAnswer {

    /** Receives the error codes of a response streamed to the client as they pass. */
    interface StreamedErrors {
        void partition(String topicName, Uuid topicId, int partition, short error);

        /** A response-level error, which applies to every partition. */
        void whole(short error);
    }

    /**
     * What watches the bytes of a response in {@code version} as they pass, reporting each
     * partition's error code to {@code errors} and removing what clients must not see.
     */
    ResponseInspector streamInspector(short version, StreamedErrors errors);
}
