package io.leasehold.testing;

import java.time.Duration;

/**
 * A reference broker JVM ({@code io.leasehold.broker.ReferenceBrokerMain}) of a
 * {@link LocalCluster}, with the signal controls fault tests need.
 */
public final class BrokerProcess implements AutoCloseable {

    /** The broker's main class, launched by name. */
    public static final String MAIN_CLASS = "io.leasehold.broker.ReferenceBrokerMain";

    private final int id;
    private final String host;
    private final int port;
    private final ManagedProcess process;

    BrokerProcess(int id, String host, int port, ManagedProcess process) {
        this.id = id;
        this.host = host;
        this.port = port;
        this.process = process;
    }

    /** The broker id ({@code --id}). */
    public int id() {
        return id;
    }

    /** The port it listens on. */
    public int port() {
        return port;
    }

    /** {@code host:port} for a client's bootstrap list. */
    public String address() {
        return host + ":" + port;
    }

    /** The process, for logs and exit codes. */
    public ManagedProcess process() {
        return process;
    }

    /** Whether the JVM is running (a paused one is). */
    public boolean isAlive() {
        return process.isAlive();
    }

    /** SIGKILL: a crash; its leases expire after the TTL. */
    public void kill() {
        process.kill();
    }

    /** SIGSTOP: frozen, like a long GC pause; its lease expires if paused past the TTL. */
    public void pause() {
        process.pause();
    }

    /** SIGCONT after {@link #pause()}. */
    public void resume() {
        process.resume();
    }

    /** SIGTERM: graceful shutdown (finish writes, release leases); returns the exit code. */
    public int terminate(Duration timeout) {
        return process.terminate(timeout);
    }

    @Override
    public void close() {
        process.close();
    }

    @Override
    public String toString() {
        return "broker " + id + " at " + address() + " " + process;
    }
}
