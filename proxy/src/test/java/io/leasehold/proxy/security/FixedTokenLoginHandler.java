package io.leasehold.proxy.security;

import java.util.List;
import java.util.Map;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.auth.login.AppConfigurationEntry;
import org.apache.kafka.common.security.auth.AuthenticateCallbackHandler;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerTokenCallback;

/**
 * A kafka-clients OAUTHBEARER login callback handler for tests: hands out the JWT given as the
 * JAAS option {@code token} (as a token endpoint would), every time the same one.
 */
public final class FixedTokenLoginHandler implements AuthenticateCallbackHandler {
    private TestBearerToken token;

    @Override
    public void configure(Map<String, ?> configs, String mechanism, List<AppConfigurationEntry> entries) {
        token = TestBearerToken.of((String) entries.get(0).getOptions().get("token"));
    }

    @Override
    public void handle(Callback[] callbacks) throws UnsupportedCallbackException {
        for (Callback callback : callbacks) {
            if (callback instanceof OAuthBearerTokenCallback tokenCallback) {
                tokenCallback.token(token);
            } else {
                throw new UnsupportedCallbackException(callback);
            }
        }
    }

    @Override
    public void close() {
    }
}
