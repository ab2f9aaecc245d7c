package io.leasehold.proxy.frontend;

import io.leasehold.proxy.backend.BackendSession;
import io.netty.buffer.ByteBufAllocator;

/**
 * What a handler may use on behalf of one client connection: that connection's backend
 * session (on the same event loop), its produce write order, the work still running for it,
 * the API versions it negotiated, its allocator and a name for log lines.
 */
public record ClientContext(BackendSession backends, PartitionWriteOrder writeOrder, ConnectionWork work,
                            NegotiatedVersions versions, ByteBufAllocator alloc, String remote) {
}
