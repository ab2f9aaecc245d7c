package io.leasehold.proxy.transport;

import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.WriteBufferWaterMark;

/** Socket settings shared by client connections and broker connections. */
public final class SocketTuning {
    /**
     * Read buffers adapt up to 1 MiB instead of Netty's 64 KiB: Kafka frames are often larger
     * than 64 KiB (a produce request with several batches, a fetch response), and every read is
     * a system call, plus a copy when a frame spans reads.
     */
    public static final RecvByteBufAllocator READS = new AdaptiveRecvByteBufAllocator(64, 16 * 1024, 1 << 20);

    /** A socket counts as full (stop feeding it) above 1 MiB queued, and as drained below 256 KiB. */
    public static final WriteBufferWaterMark WRITES = new WriteBufferWaterMark(256 * 1024, 1024 * 1024);

    private SocketTuning() {
    }
}
