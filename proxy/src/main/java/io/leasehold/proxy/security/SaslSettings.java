package io.leasehold.proxy.security;

import java.util.List;

/**
 * What the SASL listener offers: the enabled mechanism names, in the order the handshake lists
 * them, and the users they authenticate against.
 */
public record SaslSettings(List<String> mechanisms, UsersFile users) {
    public SaslSettings {
        mechanisms = List.copyOf(mechanisms);
    }
}
