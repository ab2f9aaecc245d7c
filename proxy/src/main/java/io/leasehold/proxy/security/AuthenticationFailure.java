package io.leasehold.proxy.security;

/**
 * A SASL exchange failed. {@link #reason()} is a metric label from a small fixed set;
 * {@link #getMessage()} is what the client is told (as a Kafka broker words it: it never says
 * whether the user or the password was wrong).
 */
public final class AuthenticationFailure extends Exception {
    private final String reason;

    AuthenticationFailure(String reason, String clientMessage) {
        super(clientMessage, null, false, false);
        this.reason = reason;
    }

    /**
     * One of "unknown_user", "bad_credentials", "bad_message", "unsupported_mechanism", "wrong_order",
     * "principal_changed", and for OAUTHBEARER "token_expired", "token_not_yet_valid", "bad_issuer",
     * "bad_audience", "bad_signature", "bad_token", "no_principal", "authorization_id_mismatch".
     */
    public String reason() {
        return reason;
    }
}
