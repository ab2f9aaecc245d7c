package io.leasehold.proxy.backend;

import io.leasehold.routing.snapshot.BrokerAddress;
import io.netty.channel.EventLoop;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The brokers of one backend session that are known silent: a request to one is past the
 * deadline the proxy gives an owner's answer and is still unanswered. A broker stays silent
 * until that request ends, by its answer, by its connection closing or by the backend request
 * timeout; nothing else is sent to find out, so a silent broker never has more requests queued
 * than were sent before it fell silent. Confined to the session's event loop.
 */
public final class SilentBrokers {
    private final EventLoop loop;
    private final Map<BrokerAddress, CompletableFuture<?>> silent = new HashMap<>();

    SilentBrokers(EventLoop loop) {
        this.loop = loop;
    }

    /**
     * {@code broker} left {@code answer} past the owner deadline: it is silent until that answer
     * completes, either way. A broker already silent stays so until its first such answer.
     */
    public void silentUntil(BrokerAddress broker, CompletableFuture<?> answer) {
        if (answer.isDone() || silent.containsKey(broker)) {
            return;
        }
        silent.put(broker, answer);
        answer.whenComplete((result, error) -> {
            if (loop.inEventLoop()) {
                silent.remove(broker, answer);
            } else {
                loop.execute(() -> silent.remove(broker, answer));
            }
        });
    }

    /** True while a request to {@code broker} is past the owner deadline and unanswered. */
    public boolean isSilent(BrokerAddress broker) {
        return silent.containsKey(broker);
    }
}
