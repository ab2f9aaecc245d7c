package io.leasehold.proxy.frontend;

import io.leasehold.proxy.backend.ResponseStream;
import io.leasehold.proxy.request.MemoryBudget;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.ReferenceCounted;
import java.util.ArrayDeque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a connection's responses strictly in request order although requests complete in any
 * order: each request reserves a slot when it arrives; finished slots at the head are written.
 * A slot finished with {@code null} (acks=0 produce) is skipped. A {@link ResponseStream} is
 * handed to the connection's {@link ChunkedWriteHandler}, which keeps later responses queued
 * behind it until its last byte is out. Whole answers count against the proxy's
 * {@link MemoryBudget} from the moment they are ready until the socket took them (a stream's
 * bytes do not: they are read from the broker only as fast as the client takes them).
 * Event-loop confined.
 */
final class ResponseSequencer {
    private static final Logger LOG = LoggerFactory.getLogger(ResponseSequencer.class);

    private final Channel channel;
    private final ChunkedWriteHandler streamWriter;
    private final MemoryBudget budget;
    private final ArrayDeque<Slot> slots = new ArrayDeque<>();
    private boolean closed;

    /** One request's place in line. */
    static final class Slot {
        private boolean done;
        private ReferenceCounted response;
        private int charged;
    }

    ResponseSequencer(Channel channel, ChunkedWriteHandler streamWriter, MemoryBudget budget) {
        this.channel = channel;
        this.streamWriter = streamWriter;
        this.budget = budget;
    }

    Slot reserve() {
        Slot slot = new Slot();
        slots.addLast(slot);
        return slot;
    }

    /** Requests still waiting for their turn or their response. */
    int pending() {
        return slots.size();
    }

    /** Records a slot's response (ownership taken) and writes every finished head slot. */
    void complete(Slot slot, ReferenceCounted response) {
        if (closed) {
            ReferenceCountUtil.release(response);
            return;
        }
        slot.done = true;
        slot.response = response;
        if (response instanceof ByteBuf answer) {
            slot.charged = answer.readableBytes();
            budget.charge(slot.charged);
        }
        boolean wrote = false;
        while (!slots.isEmpty() && slots.peekFirst().done) {
            Slot head = slots.pollFirst();
            if (head.response != null) {
                write(head.response, head.charged);
                head.response = null;
                wrote = true;
            }
        }
        if (wrote) {
            channel.flush();
        }
    }

    private void write(ReferenceCounted response, int charged) {
        if (!(response instanceof ResponseStream stream)) {
            channel.write(response).addListener(written -> budget.release(charged));
            return;
        }
        stream.onData(streamWriter::resumeTransfer);
        channel.write(stream).addListener(written -> {
            if (!written.isSuccess()) {
                // Part of the frame may be on the wire already: the connection cannot be reused.
                LOG.warn("Closing client {}: forwarding a response failed: {}", channel.remoteAddress(),
                        written.cause().toString());
                channel.close();
            }
        });
    }

    /** Drops queued responses when the connection is gone. */
    void close() {
        closed = true;
        for (Slot slot : slots) {
            if (slot.response != null) {
                ReferenceCountUtil.release(slot.response);
                budget.release(slot.charged);
                slot.response = null;
            }
        }
        slots.clear();
    }
}
