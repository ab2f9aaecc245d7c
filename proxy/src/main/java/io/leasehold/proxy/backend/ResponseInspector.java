package io.leasehold.proxy.backend;

import io.netty.buffer.ByteBuf;

/**
 * Sees each piece of a streamed response before it can be forwarded, in order, and may
 * overwrite bytes in place (never change their number). Runs on the backend's event loop.
 */
@FunctionalInterface
public interface ResponseInspector {
    /** Inspects {@code piece}'s readable bytes; must not move its indices or keep it. */
    void inspect(ByteBuf piece);
}
