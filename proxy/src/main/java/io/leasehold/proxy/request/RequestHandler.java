package io.leasehold.proxy.request;

import io.leasehold.proxy.protocol.RequestFrame;
import io.netty.util.ReferenceCounted;
import java.util.concurrent.CompletableFuture;

/** Turns one client request into its response; the frontend only frames and orders. */
public interface RequestHandler {
    /**
     * Handles {@code request}. The handler owns one reference of the request and releases it.
     *
     * @return the response with the client's correlation id: a {@link io.netty.buffer.ByteBuf}
     *         (header + body, no length prefix), a {@link io.leasehold.proxy.backend.ResponseStream}
     *         (a broker's frame, length prefix included, forwarded while it arrives), or
     *         {@code null} when the protocol sends no response (acks=0 produce)
     */
    CompletableFuture<ReferenceCounted> handle(RequestFrame request, ClientContext client);
}
