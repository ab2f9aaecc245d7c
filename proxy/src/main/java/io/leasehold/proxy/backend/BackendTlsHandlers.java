package io.leasehold.proxy.backend;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import java.util.function.Supplier;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

/**
 * Makes the TLS handler of each new broker connection from the current client TLS context (which
 * may be replaced when its files change; connections already open keep theirs). The broker's
 * host name is sent as SNI and, unless turned off, checked against its certificate the way an
 * HTTPS client checks it.
 */
public final class BackendTlsHandlers {
    private final Supplier<SslContext> contexts;
    private final boolean verifyHostname;

    /**
     * @param contexts       the client context to use for the next connection
     * @param verifyHostname whether the broker's certificate must name the host the proxy dialled
     */
    public BackendTlsHandlers(Supplier<SslContext> contexts, boolean verifyHostname) {
        this.contexts = contexts;
        this.verifyHostname = verifyHostname;
    }

    SslHandler newHandler(ByteBufAllocator alloc, String host, int port) {
        SslHandler handler = contexts.get().newHandler(alloc, host, port);
        if (verifyHostname) {
            SSLEngine engine = handler.engine();
            SSLParameters parameters = engine.getSSLParameters();
            parameters.setEndpointIdentificationAlgorithm("HTTPS");
            engine.setSSLParameters(parameters);
        }
        return handler;
    }
}
