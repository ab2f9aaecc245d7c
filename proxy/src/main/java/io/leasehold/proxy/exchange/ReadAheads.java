package io.leasehold.proxy.exchange;

import io.leasehold.proxy.backend.BackendSession;
import io.leasehold.proxy.request.MemoryBudget;
import io.leasehold.routing.snapshot.BrokerAddress;
import io.leasehold.routing.snapshot.Ownership;
import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One client connection's reads ahead, partition by partition: after a read has been answered,
 * each owner is asked at once for the positions the client will ask for next, so that the
 * client's next read of a partition finds its records on their way or already in (the pipelining
 * a client gets for free when it talks to every owner itself). A consumer asks again only for the
 * partitions whose records it has used up, a few at a time, so each partition's read ahead is
 * kept until it is asked for, whatever else the client asks meanwhile; one owner's answer serves
 * all the partitions it was asked for. At most one read ahead per partition; a new one replaces
 * the old. An answer held is counted in the proxy's {@link MemoryBudget} until every partition it
 * carries has been taken or dropped; it is dropped when it has not been taken within the idle time
 * and when the connection closes, and none is started while memory is short. Confined to the
 * connection's event loop.
 */
public final class ReadAheads {

    /**
     * What a read ahead was asked in besides its positions: the version and what else of the
     * request the answer depends on ({@code kind}; for Fetch its isolation level). A read ahead is
     * used only by a request asking alike.
     */
    record Form(short version, Object kind) {
    }

    /** Where a request wants to read a partition from, and by which route. */
    record Wanted(long position, Ownership owner) {
    }

    /**
     * Partitions whose reads ahead a request takes, and the one owner's answer that carries them:
     * a reference of its own for the taker to release, or null if the owner did not answer.
     */
    record Claim(Set<PartitionedExchange.Key> keys, CompletableFuture<ByteBuf> answer) {
    }

    private final BackendSession session;
    private final MemoryBudget budget;
    private final Duration idle;
    private final Map<PartitionedExchange.Key, Pending> pending = new HashMap<>();
    private boolean closed;

    private record Pending(Wanted read, Form form, Sent sent) {
    }

    /** One request sent to one owner; its answer is held until none of its partitions is left. */
    private final class Sent {
        private final CompletableFuture<ByteBuf> answer;
        private final ScheduledFuture<?> expiry;
        private int unclaimed;
        private long charged;

        Sent(CompletableFuture<ByteBuf> answer, int partitions) {
            this.answer = answer;
            this.unclaimed = partitions;
            this.expiry = session.eventLoop().schedule(() -> expire(this), idle.toNanos(), TimeUnit.NANOSECONDS);
            answer.thenAccept(frame -> {
                if (frame != null && unclaimed > 0) {
                    charged = frame.readableBytes();
                    budget.charge(charged);
                }
            });
        }

        /** One of its partitions was taken or dropped; the last one frees the answer. */
        void settle() {
            if (--unclaimed > 0) {
                return;
            }
            expiry.cancel(false);
            budget.release(charged);
            charged = 0;
            answer.thenAccept(frame -> {
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

    /**
     * Whether memory allows another read ahead: not once the budget is past the level below which
     * paused client reading resumes, so that answers nobody asked for yet never pause clients.
     */
    boolean haveRoom() {
        return budget.used() < budget.resumeBelow();
    }

    /**
     * Takes the reads ahead of the {@code wanted} partitions that were asked at exactly the
     * wanted position, by the same route and in {@code form}, grouped by the answer carrying
     * them; a wanted partition's read ahead at anything else is dropped. The caller releases each
     * claim's answer.
     */
    List<Claim> take(Map<PartitionedExchange.Key, Wanted> wanted, Form form) {
        Map<Sent, Set<PartitionedExchange.Key>> bySent = new IdentityHashMap<>();
        wanted.forEach((key, read) -> {
            Pending held = pending.remove(key);
            if (held == null) {
                return;
            }
            if (held.read().equals(read) && held.form().equals(form)) {
                bySent.computeIfAbsent(held.sent(), s -> new HashSet<>()).add(key);
            } else {
                held.sent().settle();
            }
        });
        List<Claim> claims = new ArrayList<>();
        bySent.forEach((sent, keys) -> {
            CompletableFuture<ByteBuf> answer = sent.answer.thenApply(frame -> frame == null ? null : frame.retain());
            answer.whenComplete((frame, error) -> keys.forEach(k -> sent.settle()));
            claims.add(new Claim(keys, answer));
        });
        return claims;
    }

    /**
     * Sends {@code request} (ownership taken, encoded in {@code form}) to {@code broker} as the
     * read ahead of {@code reads}, replacing earlier ones of those partitions; after
     * {@link #close()} it is not sent.
     */
    void start(BrokerAddress broker, Map<PartitionedExchange.Key, Wanted> reads, Form form, ByteBuf request) {
        if (!session.eventLoop().inEventLoop()) {
            session.eventLoop().execute(() -> start(broker, reads, form, request));
            return;
        }
        if (closed) {
            request.release();
            return;
        }
        // A failed read ahead is simply not there: the client's read then goes to the owner.
        Sent sent = new Sent(session.send(broker, request).exceptionally(error -> null), reads.size());
        reads.forEach((key, read) -> {
            Pending earlier = pending.put(key, new Pending(read, form, sent));
            if (earlier != null) {
                earlier.sent().settle();
            }
        });
    }

    /** Drops every read ahead (the connection closed); later ones are not sent. */
    void close() {
        closed = true;
        List<Pending> all = new ArrayList<>(pending.values());
        pending.clear();
        all.forEach(p -> p.sent().settle());
    }

    private void expire(Sent sent) {
        pending.values().removeIf(p -> {
            if (p.sent() != sent) {
                return false;
            }
            sent.settle();
            return true;
        });
    }
}
