package io.leasehold.testing;

import java.time.Duration;

/**
 * One JVM of a {@link LocalCluster} listening on {@code host:port}, with the signal controls
 * that fault tests use on brokers and proxies alike.
 */
public abstract class ClusterMember implements AutoCloseable {

    private final String host;
    private final int port;
    private final ManagedProcess process;

    ClusterMember(String host, int port, ManagedProcess process) {
        this.host = host;
        this.port = port;
        this.process = process;
    }

    /** The port its clients connect to. */
    public int port() {
        return port;
    }

    /** {@code host:port} for a client's bootstrap list. */
    public String address() {
        return host + ":" + port;
    }

    String host() {
        return host;
    }

    /** The process, for logs and exit codes. */
    public ManagedProcess process() {
        return process;
    }

    /** Whether the JVM is running (a paused one is). */
    public boolean isAlive() {
        return process.isAlive();
    }

    /** SIGKILL: a crash; a broker's leases then expire after the TTL. */
    public void kill() {
        process.kill();
    }

    /** SIGSTOP: frozen, like a long GC pause; a broker's lease expires if paused past the TTL. */
    public void pause() {
        process.pause();
    }

    /** SIGCONT after {@link #pause()}. */
    public void resume() {
        process.resume();
    }

    /** SIGSTOP for {@code duration}, then SIGCONT, also when the wait is interrupted. */
    public void pauseFor(Duration duration) throws InterruptedException {
        pause();
        try {
            Thread.sleep(duration.toMillis());
        } finally {
            resume();
        }
    }

    /** SIGTERM (graceful shutdown or drain) and wait; returns the exit code. */
    public int terminate(Duration timeout) {
        return process.terminate(timeout);
    }

    @Override
    public void close() {
        process.close();
    }
}
