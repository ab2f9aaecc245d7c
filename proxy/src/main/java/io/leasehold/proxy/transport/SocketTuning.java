package io.leasehold.proxy.transport;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
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

    /** 8 KiB pages << 11: pool chunks of 16 MiB. */
    private static final int BROKER_POOL_MAX_ORDER = 11;
    private static final int CHUNKS_PER_ARENA = 3;

    private SocketTuning() {
    }

    /**
     * A new pool for broker connections' buffers, whose chunks hold 16 MiB. A Fetch answer of
     * several megabytes is gathered whole before it is merged with other owners' answers; Netty's
     * default allocator pools buffers of up to 1 MiB only, so each such answer was fresh memory
     * from the system, zeroed and page-faulted in, and freed again (the largest cost in a profile
     * of a consumer reading from three owners). From this pool it reuses chunk memory.
     *
     * <p>Each arena keeps at least one chunk once used, so the arenas are counted as Netty counts
     * its own (about three chunks each within half the direct memory, at most two per core): a
     * proxy given little direct memory gets one arena, not one per event loop whose idle chunks
     * would leave its clients' buffers no room.
     *
     * @param maxDirectMemory the JVM's direct memory limit in bytes
     */
    public static ByteBufAllocator brokerBuffers(long maxDirectMemory) {
        return new PooledByteBufAllocator(true, 0, brokerArenas(maxDirectMemory),
                PooledByteBufAllocator.defaultPageSize(), BROKER_POOL_MAX_ORDER,
                PooledByteBufAllocator.defaultSmallCacheSize(), PooledByteBufAllocator.defaultNormalCacheSize(),
                PooledByteBufAllocator.defaultUseCacheForAllThreads());
    }

    static int brokerArenas(long maxDirectMemory) {
        long chunk = (long) PooledByteBufAllocator.defaultPageSize() << BROKER_POOL_MAX_ORDER;
        long fitting = maxDirectMemory / 2 / (chunk * CHUNKS_PER_ARENA);
        return (int) Math.max(1, Math.min(2L * Runtime.getRuntime().availableProcessors(), fitting));
    }
}
