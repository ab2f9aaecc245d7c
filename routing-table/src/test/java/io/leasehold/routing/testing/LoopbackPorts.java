package io.leasehold.routing.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Loopback ports for test servers that must be told their port before they start (etcd, brokers,
 * proxies, Prometheus).
 *
 * <p>Binding port 0, closing it and handing out the number races: until the server binds it, the
 * kernel may give the same number to another test JVM's port-0 bind or to any process's outgoing
 * connection, since all of those draw from the ephemeral range. So each test JVM hands out ports
 * from its own {@link PortBlock} below the ephemeral range
 * ({@code /proc/sys/net/ipv4/ip_local_port_range}): surefire fork {@code N} (system property
 * {@value #FORK_PROPERTY}) takes block {@code N}, which no other fork of the same build touches. The
 * walk starts at a random place so that two builds on one machine rarely walk in step.
 */
public final class LoopbackPorts {

    /** The system property, set by the build to surefire's fork number (1, 2, ...), choosing the block. */
    public static final String FORK_PROPERTY = "leasehold.test.fork";

    /** Ports in each fork's block. */
    static final int BLOCK_SIZE = 2_500;

    private static final int LOWEST = 10_000;
    private static final int LINUX_DEFAULT_EPHEMERAL_LOW = 32_768;
    private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");

    // The block belongs to this JVM (one surefire fork), so its cursor does too: two blocks over
    // the same numbers in one JVM would hand out the same ports.
    private static final PortBlock THIS_FORK = forkBlock(Integer.getInteger(FORK_PROPERTY, 1), ephemeralLow(),
            ThreadLocalRandom.current().nextInt(BLOCK_SIZE));

    private LoopbackPorts() {
    }

    /** A loopback port free now, not handed out before by this JVM (until its block wraps). */
    public static int take() {
        return THIS_FORK.take(1)[0];
    }

    /** {@code count} distinct loopback ports, each free now. */
    public static int[] take(int count) {
        return THIS_FORK.take(count);
    }

    /** The first of {@code count} consecutive loopback ports that are all free now (one per broker node). */
    public static int consecutive(int count) {
        return THIS_FORK.consecutive(count);
    }

    /**
     * Fork {@code fork}'s block between {@value #LOWEST} and {@code ephemeralLow}, walked from
     * offset {@code start}; forks beyond the room there share blocks round-robin.
     */
    static PortBlock forkBlock(int fork, int ephemeralLow, int start) {
        int blocks = (ephemeralLow - LOWEST) / BLOCK_SIZE;
        if (blocks < 1) {
            throw new IllegalStateException("the ephemeral port range of " + EPHEMERAL_RANGE + " starts at "
                    + ephemeralLow + ", leaving no room for test ports between " + LOWEST + " and it");
        }
        return new PortBlock(LOWEST + BLOCK_SIZE * Math.floorMod(fork - 1, blocks), BLOCK_SIZE, start);
    }

    private static int ephemeralLow() {
        if (!Files.isReadable(EPHEMERAL_RANGE)) {
            return LINUX_DEFAULT_EPHEMERAL_LOW;
        }
        try {
            // readAllLines, not readString: /proc files report size 0, and readString then reads one byte.
            return Integer.parseInt(Files.readAllLines(EPHEMERAL_RANGE).get(0).trim().split("\\s+")[0]);
        } catch (IOException e) {
            throw new UncheckedIOException("could not read " + EPHEMERAL_RANGE, e);
        }
    }
}
