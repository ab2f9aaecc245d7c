package io.leasehold.proxy.security;

import io.leasehold.proxy.protocol.FrameCap;
import io.netty.channel.Channel;

/**
 * Until a SASL connection has authenticated (and while it re-authenticates), its frames may be
 * at most {@link SaslGate#MAX_UNAUTHENTICATED_BYTES}, checked on the length prefix: an
 * unauthenticated client cannot make the proxy buffer a large frame.
 */
final class UnauthenticatedFrameCap implements FrameCap {

    @Override
    public int maxFrameBytes(Channel channel) {
        return SaslGate.authenticated(channel) ? Integer.MAX_VALUE : SaslGate.MAX_UNAUTHENTICATED_BYTES;
    }

    @Override
    public String reason() {
        return "oversized_unauthenticated";
    }

    @Override
    public String describe() {
        return "before SASL authentication";
    }
}
