package io.leasehold.proxy.routing;

import io.leasehold.proxy.backend.BackendConnector;
import io.leasehold.proxy.backend.BackendListener;
import io.leasehold.proxy.backend.BackendSession;
import io.leasehold.proxy.frontend.ActiveRequests;
import io.leasehold.proxy.frontend.ClientContext;
import io.leasehold.proxy.frontend.ConnectionWork;
import io.leasehold.proxy.frontend.NegotiatedVersions;
import io.leasehold.proxy.frontend.PartitionWriteOrder;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import java.time.Duration;

/** What routing unit tests act with: backend sessions and the context of one test client. */
final class TestClients {
    private TestClients() {
    }

    /** A backend session on one of {@code group}'s loops: 2 s connect and 5 s request timeouts, 1 MiB responses. */
    static BackendSession openSession(EventLoopGroup group) {
        return openSession(group, Duration.ofSeconds(5));
    }

    /** As {@link #openSession(EventLoopGroup)}, with backend requests timing out after {@code requestTimeout}. */
    static BackendSession openSession(EventLoopGroup group, Duration requestTimeout) {
        return BackendConnector.builder(new BackendConnector.Settings(Duration.ofSeconds(2), requestTimeout,
                        requestTimeout, 1 << 20), new BackendListener() { })
                .build()
                .openSession(group.next(), new BackendListener() { });
    }

    /** The context of one test client whose backend session is {@code session}. */
    static ClientContext on(BackendSession session) {
        return new ClientContext(session, new PartitionWriteOrder(), new ConnectionWork(new ActiveRequests(), () -> { }),
                new NegotiatedVersions(),
                ByteBufAllocator.DEFAULT, "test");
    }

    /** As {@link #on(BackendSession)}, with {@code channel} as the client's channel (where per-connection state lives). */
    static ClientContext on(BackendSession session, Channel channel) {
        return new ClientContext(session, new PartitionWriteOrder(), new ConnectionWork(new ActiveRequests(), () -> { }),
                new NegotiatedVersions(), ByteBufAllocator.DEFAULT, "test", channel);
    }
}
