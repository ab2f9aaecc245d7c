package io.leasehold.proxy.security;

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
}
