package io.leasehold.proxy.backend;

import org.apache.kafka.common.protocol.ApiKeys;

/** What the proxy wants to hear about backend connections (metrics and backpressure). */
public interface BackendListener {
    /** A connection to a broker was established. */
    default void connectionOpened() {
    }

    /** A previously established connection closed. */
    default void connectionClosed() {
    }

    /** A broker refused the proxy's SASL login on a new connection. */
    default void authenticationFailed() {
    }

    /**
     * A broker answered a request of {@code api}, {@code nanos} after it was written (for a
     * streamed answer, when its first bytes arrived). {@code brokerId} is -1 for a bootstrap
     * address whose broker id is not known.
     */
    default void answered(int brokerId, ApiKeys api, long nanos) {
    }

    /** Whether every backend connection of a session can take more writes right now. */
    default void writabilityChanged(boolean writable) {
    }
}
