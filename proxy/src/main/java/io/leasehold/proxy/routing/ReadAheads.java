package io.leasehold.proxy.routing;

import io.leasehold.proxy.backend.BackendSession;
import io.leasehold.proxy.frontend.MemoryBudget;
import io.leasehold.routing.snapshot.BrokerAddress;
import io.leasehold.routing.snapshot.Ownership;
import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One client connection's reads ahead: after a merged read has been answered, each owner that
 * returned data is asked at once for the offsets the client will ask for next, so the client's
 * next read finds that owner's answer on its way or already in (the pipelining a client gets
 * for free when it talks to every owner itself). At most one per owner; a new one replaces the
 * old. An answer held is counted in the proxy's {@link MemoryBudget} until it is taken or
 * dropped; it is dropped when it has not been taken within the idle time and when the
 * connection closes. Whether a held answer may be used (same offsets, same owners) is the
 * taker's decision. Confined to the connection's event loop.
 */
final class ReadAheads {

    /**
     * A read ahead: the offsets it asked for, the ownership each partition was routed by, the
     * version it was asked in, and the owner's answer, null if the owner did not answer
     * (ownership of the frame passes to whoever takes it).
     */
    record Held(Map<PartitionedExchange.Key, Long> offsets, Map<PartitionedExchange.Key, Ownership> owners,
                short version, CompletableFuture<ByteBuf> answer) {
    }

    private final BackendSession session;
    private final MemoryBudget budget;
    private final Duration idle;
    private final Map<BrokerAddress, Entry> held = new HashMap<>();
    private boolean closed;

    private final class Entry {
        private final BrokerAddress broker;
        private final Held read;
        private final ScheduledFuture<?> expiry;
        private long charged;
        private boolean handedOver;

        Entry(BrokerAddress broker, Held read) {
            this.broker = broker;
            this.read = read;
            this.expiry = session.eventLoop().schedule(() -> expire(this), idle.toNanos(), TimeUnit.NANOSECONDS);
            read.answer().thenAccept(frame -> {
                if (frame != null && !handedOver) {
                    charged = frame.readableBytes();
                    budget.charge(charged);
                }
            });
        }

        /** Hands the read over: the budget no longer counts it, and the taker releases the frame. */
        Held handOver() {
            handedOver = true;
            expiry.cancel(false);
            budget.release(charged);
            charged = 0;
            return read;
        }

        /** Forgets the read: its frame is released once it arrives. */
        void drop() {
            handOver().answer().thenAccept(frame -> {
                if (frame != null) {
                    frame.release();
                }
            });
        }
    }

    /**
     * @param session the connection's backend session, whose event loop this runs on
     * @param budget  where held answers are counted
     * @param idle    how long an answer is held for a read that does not come
     */
    ReadAheads(BackendSession session, MemoryBudget budget, Duration idle) {
        this.session = session;
        this.budget = budget;
        this.idle = idle;
    }

    /** Whether a read ahead of {@code broker} is in flight or held. */
    boolean holds(BrokerAddress broker) {
        return held.containsKey(broker);
    }

    /** Removes and returns the read ahead of {@code broker}, or null; the caller releases its frame. */
    Held take(BrokerAddress broker) {
        Entry entry = held.remove(broker);
        return entry == null ? null : entry.handOver();
    }

    /**
     * Sends {@code request} (ownership taken, encoded in {@code version}) to {@code broker} as its
     * read ahead of {@code offsets}, replacing any earlier one; after {@link #close()} it is not sent.
     */
    void start(BrokerAddress broker, Map<PartitionedExchange.Key, Long> offsets,
               Map<PartitionedExchange.Key, Ownership> owners, short version, ByteBuf request) {
        if (!session.eventLoop().inEventLoop()) {
            session.eventLoop().execute(() -> start(broker, offsets, owners, version, request));
            return;
        }
        Entry earlier = held.remove(broker);
        if (earlier != null) {
            earlier.drop();
        }
        if (closed) {
            request.release();
            return;
        }
        // A failed read ahead is simply not there: the client's read then goes to the owner.
        CompletableFuture<ByteBuf> answer = session.send(broker, request).exceptionally(error -> null);
        held.put(broker, new Entry(broker, new Held(new HashMap<>(offsets), new HashMap<>(owners), version, answer)));
    }

    /** Drops every read ahead (the connection closed); later ones are not sent. */
    void close() {
        closed = true;
        new ArrayList<>(held.values()).forEach(Entry::drop);
        held.clear();
    }

    private void expire(Entry entry) {
        if (held.remove(entry.broker, entry)) {
            entry.drop();
        }
    }
}
