package io.leasehold.routing.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/**
 * A block of loopback port numbers handed out by a cursor that walks it from a given start and
 * wraps around, skipping every number that cannot be bound at that moment. A number is handed out
 * again only after the cursor has gone round the whole block.
 */
public final class PortBlock {

    private final int first;
    private final int size;
    private int cursor;

    /** The block {@code first .. first+size-1}, walked from {@code first + start}. */
    public PortBlock(int first, int size, int start) {
        if (first < 1 || size < 1 || first + size - 1 > 65_535 || start < 0 || start >= size) {
            throw new IllegalArgumentException("no port block " + first + ".." + (first + size - 1)
                    + " starting at offset " + start);
        }
        this.first = first;
        this.size = size;
        this.cursor = start;
    }

    /** {@code count} distinct ports of the block, each bindable on loopback now. */
    public synchronized int[] take(int count) {
        int[] ports = new int[count];
        int found = 0;
        for (int tried = 0; tried < size && found < count; tried++) {
            int port = first + cursor;
            advance(1);
            if (bindable(port)) {
                ports[found++] = port;
            }
        }
        if (found < count) {
            throw new IllegalStateException("only " + found + " of " + count + " ports free in " + this);
        }
        return ports;
    }

    /** The first of {@code count} consecutive ports of the block, all bindable on loopback now. */
    public synchronized int consecutive(int count) {
        if (count < 1 || count > size) {
            throw new IllegalArgumentException("a run of " + count + " ports does not fit in " + this);
        }
        for (int tried = 0; tried < size; tried++) {
            if (cursor + count > size) {
                advance(size - cursor);
            }
            int run = first + cursor;
            int taken = firstTaken(run, count);
            if (taken < 0) {
                advance(count);
                return run;
            }
            advance(taken - run + 1);
        }
        throw new IllegalStateException("no " + count + " consecutive free ports in " + this);
    }

    /** Whether {@code port} is a number of this block. */
    public boolean contains(int port) {
        return port >= first && port < first + size;
    }

    @Override
    public String toString() {
        return "port block " + first + ".." + (first + size - 1);
    }

    private void advance(int by) {
        cursor = (cursor + by) % size;
    }

    /** The first port of {@code run .. run+count-1} that cannot be bound, or -1 if all can. */
    private static int firstTaken(int run, int count) {
        for (int port = run; port < run + count; port++) {
            if (!bindable(port)) {
                return port;
            }
        }
        return -1;
    }

    private static boolean bindable(int port) {
        try (ServerSocket probe = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return probe.isBound();
        } catch (IOException taken) {
            return false;
        }
    }
}
