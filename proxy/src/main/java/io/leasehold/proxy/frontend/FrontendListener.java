package io.leasehold.proxy.frontend;

import org.apache.kafka.common.protocol.ApiKeys;

/**
 * What the client-facing listener reports about its connections and requests (the proxy's
 * metrics implement it). Every reason is one of a small fixed set, so it can tag a metric.
 */
public interface FrontendListener {
    /**
     * A client connection accepted on one of the proxy's Kafka ports: {@code listener} is
     * "bootstrap" or, in the node-per-owner presentation, "node-ID" for the port of node ID.
     */
    void listenerConnectionAccepted(String listener);

    /** A client connection refused at accept time, e.g. "max_connections" or "accept_rate". */
    void connectionRefused(String reason);

    /** A client connection became active. */
    void clientConnectionOpened();

    /** A client connection that became active closed. */
    void clientConnectionClosed();

    /**
     * A client connection closed because its TLS handshake failed; {@code reason} is one of
     * "not_tls" (a plaintext client), "rejected" (certificates or protocol), "timeout", "closed"
     * (the client went away mid-handshake) or "no_principal" (its certificate names no principal).
     */
    void tlsHandshakeFailed(String reason);

    /** A client frame refused; {@code reason} is e.g. "oversized" or "malformed". */
    void frameRejected(String reason);

    /** A client request held back until its connection has fewer than its in-flight limit in progress. */
    void requestQueued();

    /** A client request waits because its connection used up its request rate. */
    void requestThrottled();

    /** A client connection is muted (not read) until its request rate allows the next request. */
    void connectionMuted();

    /** One client request answered (or failed) {@code durationNanos} after it started. */
    void requestCompleted(ApiKeys api, long durationNanos, boolean failedRequest);

    /**
     * The bytes of one client request frame and of its answer ({@code responseFrameBytes} 0 when
     * none is sent, as for an acks=0 Produce), both without their 4-byte size prefix.
     */
    void requestTransferred(ApiKeys api, long requestFrameBytes, long responseFrameBytes);

    /** A client connection closed because it stayed idle longer than {@code limits.idleTimeout}. */
    void idleConnectionClosed();

    /**
     * A client connection closed because it missed a deadline: "first_request", "frame_completion",
     * "response_stalled" or "request_deadline".
     */
    void connectionTimedOut(String reason);

    /** A graceful drain ran out of time with client connections still busy. */
    void drainTimedOut();
}
