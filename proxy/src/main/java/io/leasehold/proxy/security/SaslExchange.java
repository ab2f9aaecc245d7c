package io.leasehold.proxy.security;

import java.time.Instant;

/** The server side of one SASL mechanism's exchange on one connection. */
interface SaslExchange {
    /**
     * Takes the client's next token and returns the server's answer (possibly empty).
     *
     * @throws AuthenticationFailure when the client cannot be authenticated
     */
    byte[] evaluate(byte[] clientToken) throws AuthenticationFailure;

    /** Whether the exchange has ended with the client authenticated. */
    boolean complete();

    /** The authenticated user's name; only once {@link #complete()}. */
    String userName();

    /**
     * When the credential the client authenticated with stops being valid (an OAUTHBEARER
     * token's expiry), or {@code null} when it does not expire; only once {@link #complete()}.
     */
    default Instant credentialExpiry() {
        return null;
    }

    /**
     * Why the client was refused, when the mechanism tells it so in a token and waits for its
     * acknowledgement before the exchange fails (OAUTHBEARER's {@code invalid_token} status);
     * {@code null} otherwise. The refusal counts from the moment it is told: a client may drop the
     * connection instead of acknowledging.
     */
    default String refusal() {
        return null;
    }
}
