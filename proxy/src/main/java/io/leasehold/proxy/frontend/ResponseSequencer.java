package io.leasehold.proxy.frontend;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import java.util.ArrayDeque;

/**
 * Writes a connection's responses strictly in request order although requests complete in any
 * order: each request reserves a slot when it arrives; finished slots at the head are written.
 * A slot finished with {@code null} (acks=0 produce) is skipped. Event-loop confined.
 */
final class ResponseSequencer {
    private final Channel channel;
    private final ArrayDeque<Slot> slots = new ArrayDeque<>();
    private boolean closed;

    /** One request's place in line. */
    static final class Slot {
        private boolean done;
        private ByteBuf response;
    }

    ResponseSequencer(Channel channel) {
        this.channel = channel;
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
    void complete(Slot slot, ByteBuf response) {
        if (closed) {
            if (response != null) {
                response.release();
            }
            return;
        }
        slot.done = true;
        slot.response = response;
        boolean wrote = false;
        while (!slots.isEmpty() && slots.peekFirst().done) {
            Slot head = slots.pollFirst();
            if (head.response != null) {
                channel.write(head.response, channel.voidPromise());
                head.response = null;
                wrote = true;
            }
        }
        if (wrote) {
            channel.flush();
        }
    }

    /** Drops queued responses when the connection is gone. */
    void close() {
        closed = true;
        for (Slot slot : slots) {
            if (slot.response != null) {
                slot.response.release();
                slot.response = null;
            }
        }
        slots.clear();
    }
}
