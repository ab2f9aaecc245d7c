package io.leasehold.proxy.backend;

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

    /** Whether every backend connection of a session can take more writes right now. */
    default void writabilityChanged(boolean writable) {
    }
}
