package io.leasehold.proxy.testing;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test identity provider's JWKS endpoint: the JDK's HTTPS server on a free loopback port with a
 * {@link TestCertificates} server certificate, answering {@code GET /jwks.json} with whatever
 * status and body the test set last, and counting the requests.
 */
public final class JwksServer implements AutoCloseable {
    private final HttpsServer server;
    private final AtomicInteger requests = new AtomicInteger();
    private volatile int status = 200;
    private volatile String body = "";

    private JwksServer(HttpsServer server) {
        this.server = server;
    }

    /** Starts serving with {@code certs}' server certificate. */
    public static JwksServer start(TestCertificates certs) throws IOException {
        JdkSslContext tls = (JdkSslContext) SslContextBuilder.forServer(certs.cert(TestCertificates.SERVER).toFile(),
                certs.key(TestCertificates.SERVER).toFile()).sslProvider(SslProvider.JDK).build();
        HttpsServer server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(tls.context()));
        JwksServer jwks = new JwksServer(server);
        server.createContext("/jwks.json", exchange -> {
            jwks.requests.incrementAndGet();
            byte[] answer = jwks.body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(jwks.status, answer.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(answer);
            }
        });
        server.start();
        return jwks;
    }

    /** Answers with {@code status} and {@code body} from now on. */
    public JwksServer answer(int status, String body) {
        this.body = body;
        this.status = status;
        return this;
    }

    /** Answers 200 with the JWKS that {@code tokens} publish. */
    public JwksServer publish(TestTokens tokens) {
        return answer(200, tokens.jwks());
    }

    /** {@code https://127.0.0.1:PORT/jwks.json}. */
    public URI url() {
        return URI.create("https://127.0.0.1:" + server.getAddress().getPort() + "/jwks.json");
    }

    /** How many requests it has answered. */
    public int requests() {
        return requests.get();
    }

    /** Stops listening; a later fetch finds the port closed. */
    @Override
    public void close() {
        server.stop(0);
    }
}
