package io.leasehold.proxy.backend;

/**
 * A broker refused the proxy's SASL login (or the exchange broke off): the connection is closed
 * and the broker is treated as unreachable until a later connection authenticates.
 */
final class BrokerAuthenticationException extends Exception {
    BrokerAuthenticationException(String message) {
        super(message);
    }

    BrokerAuthenticationException(String message, Throwable cause) {
        super(message, cause);
    }
}
