package io.leasehold.proxy.security;

import java.time.Duration;
import java.util.List;

/**
 * What the SASL listener offers: the enabled mechanism names, in the order the handshake lists
 * them, the users PLAIN and SCRAM authenticate against ({@code null} without them), what
 * OAUTHBEARER tokens must satisfy ({@code null} without it), and how long an authentication lasts
 * before the client must re-authenticate ({@code null}: as long as the connection, or as the
 * OAUTHBEARER token).
 */
public record SaslSettings(List<String> mechanisms, UsersFile users, OAuthBearerSettings oauthBearer,
                           Duration maxReauth) {
    public SaslSettings {
        mechanisms = List.copyOf(mechanisms);
    }

    /** Settings without OAUTHBEARER. */
    public SaslSettings(List<String> mechanisms, UsersFile users, Duration maxReauth) {
        this(mechanisms, users, null, maxReauth);
    }
}
