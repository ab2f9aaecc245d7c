package io.leasehold.proxy.security;

import java.time.Duration;
import java.util.List;

/**
 * What the SASL listener offers: the enabled mechanism names, in the order the handshake lists
 * them, the users they authenticate against, and how long an authentication lasts before the
 * client must re-authenticate ({@code null}: as long as the connection).
 */
public record SaslSettings(List<String> mechanisms, UsersFile users, Duration maxReauth) {
    public SaslSettings {
        mechanisms = List.copyOf(mechanisms);
    }
}
