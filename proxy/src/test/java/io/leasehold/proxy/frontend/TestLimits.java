package io.leasehold.proxy.frontend;

import io.leasehold.proxy.config.ProxyConfig;
import java.time.Duration;

/**
 * {@link ProxyConfig.Limits} for a test listener, set by name: a test sets the limits it is
 * about and leaves the rest. Unless set, frames are at most 1 KiB, 10 connections are served,
 * each idle for at most 30 s with 8 requests in flight and 10 s for its TLS handshake; the first
 * request and each frame may take as long as a connection may stay idle; every other count and
 * rate is unbounded, no request deadline applies and no memory budget is named.
 */
public final class TestLimits {
    private int maxFrameBytes = 1024;
    private int maxConnections = 10;
    private Duration idleTimeout = Duration.ofSeconds(30);
    private int maxInFlightPerConnection = 8;
    private Duration tlsHandshakeTimeout = Duration.ofSeconds(10);
    private int maxConnectionsPerIp = Integer.MAX_VALUE;
    private Duration firstRequestTimeout;
    private Duration frameCompletionTimeout;
    private int acceptsPerSecond = Integer.MAX_VALUE;
    private int tlsHandshakesPerSecond = Integer.MAX_VALUE;
    private int maxPartitionsPerRequest = Integer.MAX_VALUE;
    private int maxTopicsPerMetadataRequest = Integer.MAX_VALUE;
    private Duration requestDeadline;

    private TestLimits() {
    }

    public static TestLimits builder() {
        return new TestLimits();
    }

    public TestLimits maxFrameBytes(int maxFrameBytes) {
        this.maxFrameBytes = maxFrameBytes;
        return this;
    }

    public TestLimits maxConnections(int maxConnections) {
        this.maxConnections = maxConnections;
        return this;
    }

    public TestLimits idleTimeout(Duration idleTimeout) {
        this.idleTimeout = idleTimeout;
        return this;
    }

    public TestLimits maxInFlightPerConnection(int maxInFlightPerConnection) {
        this.maxInFlightPerConnection = maxInFlightPerConnection;
        return this;
    }

    public TestLimits tlsHandshakeTimeout(Duration tlsHandshakeTimeout) {
        this.tlsHandshakeTimeout = tlsHandshakeTimeout;
        return this;
    }

    public TestLimits maxConnectionsPerIp(int maxConnectionsPerIp) {
        this.maxConnectionsPerIp = maxConnectionsPerIp;
        return this;
    }

    public TestLimits firstRequestTimeout(Duration firstRequestTimeout) {
        this.firstRequestTimeout = firstRequestTimeout;
        return this;
    }

    public TestLimits frameCompletionTimeout(Duration frameCompletionTimeout) {
        this.frameCompletionTimeout = frameCompletionTimeout;
        return this;
    }

    public TestLimits acceptsPerSecond(int acceptsPerSecond) {
        this.acceptsPerSecond = acceptsPerSecond;
        return this;
    }

    public TestLimits tlsHandshakesPerSecond(int tlsHandshakesPerSecond) {
        this.tlsHandshakesPerSecond = tlsHandshakesPerSecond;
        return this;
    }

    public TestLimits maxPartitionsPerRequest(int maxPartitionsPerRequest) {
        this.maxPartitionsPerRequest = maxPartitionsPerRequest;
        return this;
    }

    public TestLimits maxTopicsPerMetadataRequest(int maxTopicsPerMetadataRequest) {
        this.maxTopicsPerMetadataRequest = maxTopicsPerMetadataRequest;
        return this;
    }

    public TestLimits requestDeadline(Duration requestDeadline) {
        this.requestDeadline = requestDeadline;
        return this;
    }

    public ProxyConfig.Limits build() {
        return new ProxyConfig.Limits(maxFrameBytes, maxConnections, idleTimeout, maxInFlightPerConnection,
                tlsHandshakeTimeout, maxConnectionsPerIp,
                firstRequestTimeout != null ? firstRequestTimeout : idleTimeout,
                frameCompletionTimeout != null ? frameCompletionTimeout : idleTimeout,
                null, acceptsPerSecond, tlsHandshakesPerSecond, maxPartitionsPerRequest,
                maxTopicsPerMetadataRequest, Integer.MAX_VALUE, requestDeadline);
    }
}
