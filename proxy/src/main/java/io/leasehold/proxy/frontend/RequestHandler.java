package io.leasehold.proxy.frontend;

import io.leasehold.proxy.protocol.RequestFrame;
import io.netty.buffer.ByteBuf;
import java.util.concurrent.CompletableFuture;

/** Turns one client request into its response; the frontend only frames and orders. */
public interface RequestHandler {
    /**
     * Handles {@code request}. The handler owns one reference of the request and releases it.
     *
     * @return the encoded response (header + body, no length prefix, client's correlation id),
     *         or {@code null} when the protocol sends no response (acks=0 produce)
     */
    CompletableFuture<ByteBuf> handle(RequestFrame request, ClientContext client);
}
