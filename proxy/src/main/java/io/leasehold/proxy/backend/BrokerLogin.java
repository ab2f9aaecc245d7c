package io.leasehold.proxy.backend;

import io.leasehold.proxy.protocol.KafkaMessages;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.PasswordCallback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.sasl.Sasl;
import javax.security.sasl.SaslClient;
import javax.security.sasl.SaslException;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.security.scram.internals.ScramSaslClient;

/**
 * Logs a new broker connection in with the proxy's service identity before it carries any client
 * request: SaslHandshake v1 naming the mechanism, then SaslAuthenticate v2 rounds until the SASL
 * client is done. The SASL messages come from kafka-clients' SCRAM client and the JDK's PLAIN
 * client, so the proxy speaks exactly what a Kafka client speaks. The broker's answer may limit
 * the session (KIP-368 {@code session_lifetime_ms}); the caller retires the connection before it
 * ends.
 */
public final class BrokerLogin {
    private static final short HANDSHAKE_VERSION = 1;
    private static final short AUTHENTICATE_VERSION = 2;
    private static final String CLIENT_ID = "leasehold-proxy";

    private final String mechanism;
    private final BrokerCredentials credentials;
    private final ByteBufAllocator alloc;

    /** @param mechanism PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 */
    public BrokerLogin(String mechanism, BrokerCredentials credentials, ByteBufAllocator alloc) {
        this.mechanism = mechanism;
        this.credentials = credentials;
        this.alloc = alloc;
    }

    /** Who logs in with what, for log lines. */
    String describe() {
        return "user " + credentials.username() + " with " + mechanism;
    }

    /**
     * Runs the exchange on {@code connection} (on its event loop), each answer awaited at most
     * {@code deadline}. Completes with the session lifetime the broker granted ({@link Duration#ZERO}
     * for none), or fails with {@link BrokerAuthenticationException} carrying the broker's message.
     */
    CompletableFuture<Duration> authenticate(BackendConnection connection, String host, Duration deadline) {
        SaslClient client;
        try {
            client = saslClient(host, credentials.current());
        } catch (SaslException e) {
            return CompletableFuture.failedFuture(
                    new BrokerAuthenticationException("cannot start a " + mechanism + " SASL client: " + e.getMessage(), e));
        }
        ByteBuf handshake = KafkaMessages.encodeRequest(alloc, ApiKeys.SASL_HANDSHAKE, HANDSHAKE_VERSION, CLIENT_ID,
                new SaslHandshakeRequestData().setMechanism(mechanism));
        CompletableFuture<Duration> done = connection.send(handshake, deadline).thenCompose(frame -> {
            SaslHandshakeResponseData response = decode(frame, ApiKeys.SASL_HANDSHAKE, HANDSHAKE_VERSION);
            if (response.errorCode() != Errors.NONE.code()) {
                throw refused("the broker does not offer " + mechanism + " (" + Errors.forCode(response.errorCode())
                        + "; it offers " + response.mechanisms() + ")");
            }
            byte[] first = client.hasInitialResponse() ? evaluate(client, new byte[0]) : new byte[0];
            return round(connection, client, first, deadline);
        });
        return done.whenComplete((lifetime, error) -> dispose(client));
    }

    private CompletableFuture<Duration> round(BackendConnection connection, SaslClient client, byte[] token,
                                              Duration deadline) {
        ByteBuf request = KafkaMessages.encodeRequest(alloc, ApiKeys.SASL_AUTHENTICATE, AUTHENTICATE_VERSION,
                CLIENT_ID, new SaslAuthenticateRequestData().setAuthBytes(token));
        return connection.send(request, deadline).thenCompose(frame -> {
            SaslAuthenticateResponseData response = decode(frame, ApiKeys.SASL_AUTHENTICATE, AUTHENTICATE_VERSION);
            if (response.errorCode() != Errors.NONE.code()) {
                throw refused("the broker refused " + describe() + ": " + Errors.forCode(response.errorCode()) + ": "
                        + response.errorMessage());
            }
            byte[] next = client.isComplete() ? null : evaluate(client, response.authBytes());
            if (client.isComplete() && next == null) {
                return CompletableFuture.completedFuture(Duration.ofMillis(response.sessionLifetimeMs()));
            }
            return round(connection, client, next == null ? new byte[0] : next, deadline);
        });
    }

    private SaslClient saslClient(String host, BrokerCredentials.Login login) throws SaslException {
        String[] mechanisms = {mechanism};
        javax.security.auth.callback.CallbackHandler callbacks = all -> answer(all, login);
        // Kafka's SCRAM client is built directly, not registered as a JVM-wide security provider.
        SaslClient client = mechanism.equals("PLAIN")
                ? Sasl.createSaslClient(mechanisms, null, "kafka", host, Map.of(), callbacks)
                : new ScramSaslClient.ScramSaslClientFactory().createSaslClient(mechanisms, null, "kafka", host,
                        Map.of(), callbacks);
        if (client == null) {
            throw new SaslException("no SASL client for " + mechanism + " in this JVM");
        }
        return client;
    }

    private static void answer(Callback[] callbacks, BrokerCredentials.Login login) throws UnsupportedCallbackException {
        for (Callback callback : callbacks) {
            if (callback instanceof NameCallback name) {
                name.setName(login.username());
            } else if (callback instanceof PasswordCallback password) {
                password.setPassword(login.password());
                Arrays.fill(login.password(), '\0');
            } else {
                // Kafka's SCRAM client asks for extensions too, and goes on without them.
                throw new UnsupportedCallbackException(callback);
            }
        }
    }

    private static byte[] evaluate(SaslClient client, byte[] challenge) {
        try {
            return client.evaluateChallenge(challenge);
        } catch (SaslException e) {
            throw refused("the broker's SASL answer does not check out: " + e.getMessage());
        }
    }

    private static <T extends ApiMessage> T decode(ByteBuf frame, ApiKeys api, short version) {
        try {
            return KafkaMessages.decodeResponse(frame, api, version);
        } finally {
            frame.release();
        }
    }

    private static CompletionException refused(String message) {
        return new CompletionException(new BrokerAuthenticationException(message));
    }

    private static void dispose(SaslClient client) {
        try {
            client.dispose();
        } catch (SaslException e) {
            // Nothing is left to release once the exchange is over; disposing only clears state.
        }
    }
}
