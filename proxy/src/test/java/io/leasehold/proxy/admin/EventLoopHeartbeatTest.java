package io.leasehold.proxy.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A blocked event loop makes the heartbeat report the process as not live until the loop runs again. */
class EventLoopHeartbeatTest {

    @Test
    void aBlockedEventLoopIsReportedUntilItRunsAgain() throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        CountDownLatch release = new CountDownLatch(1);
        try (EventLoopHeartbeat heartbeat = new EventLoopHeartbeat(group, Duration.ofMillis(50),
                Duration.ofMillis(500))) {
            await().atMost(Duration.ofSeconds(5)).until(heartbeat::allResponsive);

            // A task that blocks one loop, as a blocking call on an event loop would.
            group.next().execute(() -> {
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            await().atMost(Duration.ofSeconds(10)).until(() -> !heartbeat.allResponsive());

            release.countDown();
            await().atMost(Duration.ofSeconds(5)).until(heartbeat::allResponsive);
        } finally {
            release.countDown();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
