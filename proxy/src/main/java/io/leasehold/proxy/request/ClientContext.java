package io.leasehold.proxy.request;

import io.leasehold.proxy.backend.BackendSession;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * What a handler may use on behalf of one client connection: that connection's backend
 * session (on the same event loop), its produce write order, the work still running for it,
 * the API versions it negotiated, its allocator, a name for log lines, and the client's channel,
 * where per-connection security state lives (its attributes, its TLS session) and which that
 * state may close. {@link #principal()} is who the connection has authenticated as.
 */
public record ClientContext(BackendSession backends, PartitionWriteOrder writeOrder, ConnectionWork work,
                            NegotiatedVersions versions, ByteBufAllocator alloc, String remote, Channel channel) {

    /**
     * The principal this connection has authenticated as (by SASL);
     * {@link KafkaPrincipal#ANONYMOUS} when it has not, or without a channel.
     */
    public KafkaPrincipal principal() {
        return channel == null ? KafkaPrincipal.ANONYMOUS : ConnectionPrincipal.of(channel);
    }
}
