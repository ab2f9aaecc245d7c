package io.leasehold.proxy.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PoolArenaMetric;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;

/**
 * Broker connections' buffers come from a pool that holds an owner's Fetch answer of several
 * megabytes in its chunks, so gathering one reuses pooled memory instead of taking fresh memory
 * from the system (zeroed and page-faulted in) each time.
 */
class BrokerBuffersTest {
    private static final int EIGHT_MIB = 8 << 20;

    @Test
    void anAnswerOfEightMebibytesIsServedFromThePoolNotAsAHugeAllocation() {
        PooledByteBufAllocator buffers = (PooledByteBufAllocator) SocketTuning.brokerBuffers(1L << 30);
        for (int i = 0; i < 3; i++) {
            ByteBuf frame = buffers.directBuffer(EIGHT_MIB);
            assertThat(frame.capacity()).isEqualTo(EIGHT_MIB);
            frame.release();
        }
        long huge = buffers.metric().directArenas().stream().mapToLong(PoolArenaMetric::numHugeAllocations).sum();
        long pooled = buffers.metric().directArenas().stream().mapToLong(PoolArenaMetric::numNormalAllocations).sum();
        assertThat(huge).as("allocations outside the pool's chunks").isZero();
        assertThat(pooled).as("allocations from the pool's chunks").isEqualTo(3);
    }

    @Test
    void aProxyWithLittleDirectMemoryGetsOneArenaAndAGenerousOneUpToTwoPerCore() {
        assertThat(SocketTuning.brokerArenas(128L << 20)).isEqualTo(1);
        assertThat(SocketTuning.brokerArenas(1L << 30))
                .isEqualTo(Math.min(2 * Runtime.getRuntime().availableProcessors(), 10));
        assertThat(SocketTuning.brokerArenas(64L << 30)).isEqualTo(2 * Runtime.getRuntime().availableProcessors());
    }
}
