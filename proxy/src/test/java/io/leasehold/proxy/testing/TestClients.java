package io.leasehold.proxy.testing;

import io.leasehold.proxy.backend.BackendConnector;
import io.leasehold.proxy.backend.BackendListener;
import io.leasehold.proxy.backend.BackendSession;
import io.leasehold.proxy.request.ActiveRequests;
import io.leasehold.proxy.request.ClientContext;
import io.leasehold.proxy.request.ConnectionWork;
import io.leasehold.proxy.request.NegotiatedVersions;
import io.leasehold.proxy.request.PartitionWriteOrder;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import java.time.Duration;

/** What routing unit tests act with: backend sessions and the context of one test client. */
public final class TestClients {
    private TestClients() {
    }

    /** A backend session on one of {@code group}'s loops: 2 s connect and 5 s request timeouts, 1 MiB responses. */
    public static BackendSession openSession(EventLoopGroup group) {
        return openSession(group, Duration.ofSeconds(5));
    }

    /** As {@link #openSession(EventLoopGroup)}, with backend requests timing out after {@code requestTimeout}. */
    public static BackendSession openSession(EventLoopGroup group, Duration requestTimeout) {
        return BackendConnector.builder(new BackendConnector.Settings(Duration.ofSeconds(2), requestTimeout,
                        requestTimeout, 1 << 20), new BackendListener() { })
                .build()
                .openSession(group.next(), new BackendListener() { });
    }

    /** The context of one test client whose backend session is {@code session}. */
    public static ClientContext on(BackendSession session) {
        return new ClientContext(session, new PartitionWriteOrder(), new ConnectionWork(new ActiveRequests(), () -> { }),
                new NegotiatedVersions(),
                ByteBufAllocator.DEFAULT, "test", null);
    }

    /** As {@link #on(BackendSession)}, with {@code channel} as the client's channel (where per-connection state lives). */
    public static ClientContext on(BackendSession session, Channel channel) {
        return new ClientContext(session, new PartitionWriteOrder(), new ConnectionWork(new ActiveRequests(), () -> { }),
                new NegotiatedVersions(), ByteBufAllocator.DEFAULT, "test", channel);
    }
}
