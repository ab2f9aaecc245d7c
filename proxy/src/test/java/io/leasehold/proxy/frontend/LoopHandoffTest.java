package io.leasehold.proxy.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.DefaultEventLoop;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class LoopHandoffTest {

    @Test
    void aResponseForALoopThatHasShutDownIsReleasedNotDropped() throws Exception {
        DefaultEventLoop loop = new DefaultEventLoop();
        loop.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
        ByteBuf response = Unpooled.directBuffer(16).writeLong(7);
        AtomicBoolean ran = new AtomicBoolean();

        LoopHandoff.run(loop, () -> ran.set(true), response);

        assertThat(ran).isFalse();
        assertThat(response.refCnt()).isZero();
    }

    @Test
    void aResponseIsHandedToALiveLoopUntouched() throws Exception {
        DefaultEventLoop loop = new DefaultEventLoop();
        try {
            ByteBuf response = Unpooled.directBuffer(16).writeLong(7);
            CompletableFuture<Integer> seen = new CompletableFuture<>();

            LoopHandoff.run(loop, () -> seen.complete(response.refCnt()), response);

            assertThat(seen.get(5, TimeUnit.SECONDS)).isEqualTo(1);
            response.release();
        } finally {
            loop.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
        }
    }
}
