package io.leasehold.proxy.frontend;

import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.EventExecutor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Hands a finished response to the event loop that owns its connection. A loop that has shut
 * down (the proxy stopping while a broker connection fails its pending requests) refuses the
 * task; the response would then be dropped unreleased, so it is released here instead.
 */
final class LoopHandoff {
    private LoopHandoff() {
    }

    /** Runs {@code task} on {@code loop}, or releases {@code carried} if the loop refuses it. */
    static void run(EventExecutor loop, Runnable task, Object carried) {
        if (loop.inEventLoop()) {
            task.run();
            return;
        }
        try {
            loop.execute(task);
        } catch (RejectedExecutionException e) {
            ReferenceCountUtil.release(carried);
        }
    }
}
