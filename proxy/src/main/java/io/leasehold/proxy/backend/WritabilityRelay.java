package io.leasehold.proxy.backend;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/** Tells the owning session when a backend socket's outbound buffer fills or drains. */
final class WritabilityRelay extends ChannelInboundHandlerAdapter {
    private final Runnable onChange;

    WritabilityRelay(Runnable onChange) {
        this.onChange = onChange;
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        onChange.run();
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        onChange.run();
        ctx.fireChannelInactive();
    }
}
