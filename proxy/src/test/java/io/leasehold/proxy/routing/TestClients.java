package io.leasehold.proxy.routing;

import io.leasehold.proxy.backend.BackendSession;
import io.leasehold.proxy.frontend.ActiveRequests;
import io.leasehold.proxy.frontend.ClientContext;
import io.leasehold.proxy.frontend.ConnectionWork;
import io.leasehold.proxy.frontend.PartitionWriteOrder;
import io.netty.buffer.ByteBufAllocator;

/** The client connection context routing unit tests act for: one test client on {@code session}. */
final class TestClients {
    private TestClients() {
    }

    static ClientContext on(BackendSession session) {
        return new ClientContext(session, new PartitionWriteOrder(), new ConnectionWork(new ActiveRequests(), () -> { }),
                ByteBufAllocator.DEFAULT, "test");
    }
}
