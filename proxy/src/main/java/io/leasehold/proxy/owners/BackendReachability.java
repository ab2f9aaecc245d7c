package io.leasehold.proxy.owners;

import io.leasehold.proxy.backend.BackendSession;
import io.leasehold.proxy.protocol.KafkaMessages;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * Knows whether at least one backend broker answers, by asking any live broker for its API
 * versions at a fixed interval. Feeds readiness: a proxy with no reachable broker is unready.
 */
public final class BackendReachability implements AutoCloseable {
    private final BackendSession backends;
    private final OwnerLookup router;
    private final ByteBufAllocator alloc;
    private final AtomicInteger spread = new AtomicInteger();
    private volatile boolean reachable;
    private ScheduledFuture<?> task;

    public BackendReachability(BackendSession backends, OwnerLookup router, ByteBufAllocator alloc) {
        this.backends = backends;
        this.router = router;
        this.alloc = alloc;
    }

    /** Starts probing every {@code interval}. */
    public void start(Duration interval) {
        task = backends.eventLoop().scheduleWithFixedDelay(this::probe, 0, interval.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    /** True if the latest probe got an answer from some broker. */
    public boolean isReachable() {
        return reachable;
    }

    private void probe() {
        backends.sendToAny(router.anyBrokerOrder(spread.getAndIncrement()), () -> KafkaMessages.encodeRequest(alloc,
                        ApiKeys.API_VERSIONS, (short) 0, "leasehold-proxy-probe", new ApiVersionsRequestData()))
                .whenComplete((frame, error) -> {
                    reachable = error == null;
                    if (frame != null) {
                        frame.release();
                    }
                });
    }

    @Override
    public void close() {
        if (task != null) {
            task.cancel(false);
        }
    }
}
