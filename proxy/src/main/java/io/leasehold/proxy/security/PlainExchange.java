package io.leasehold.proxy.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.UnsupportedCallbackException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.security.plain.PlainAuthenticateCallback;
import org.apache.kafka.common.security.plain.internals.PlainSaslServer;

/**
 * SASL/PLAIN through kafka-clients' own {@link PlainSaslServer}, which parses the token; this
 * class only answers its callback with a constant-time password comparison against the users file.
 */
final class PlainExchange implements SaslExchange {
    private final UserDirectory users;
    private final PlainSaslServer server;
    private String failure = "bad_message";

    PlainExchange(UserDirectory users) {
        this.users = users;
        this.server = new PlainSaslServer(this::check);
    }

    private void check(Callback[] callbacks) throws UnsupportedCallbackException {
        String name = null;
        for (Callback callback : callbacks) {
            if (callback instanceof NameCallback nameCallback) {
                name = nameCallback.getDefaultName();
            } else if (callback instanceof PlainAuthenticateCallback authenticate) {
                authenticate.authenticated(matches(name, authenticate.password()));
            } else {
                throw new UnsupportedCallbackException(callback);
            }
        }
    }

    private boolean matches(String name, char[] offered) {
        String password = name == null ? null : users.find(name).map(UserCredentials::password).orElse(null);
        if (password == null) {
            failure = "unknown_user";
            return false;
        }
        failure = "bad_credentials";
        return MessageDigest.isEqual(password.getBytes(StandardCharsets.UTF_8),
                new String(offered).getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public byte[] evaluate(byte[] clientToken) throws AuthenticationFailure {
        try {
            return server.evaluateResponse(clientToken);
        } catch (SaslAuthenticationException e) {
            throw new AuthenticationFailure(failure, "Authentication failed: Invalid username or password");
        }
    }

    @Override
    public boolean complete() {
        return server.isComplete();
    }

    @Override
    public String userName() {
        return server.getAuthorizationID();
    }
}
