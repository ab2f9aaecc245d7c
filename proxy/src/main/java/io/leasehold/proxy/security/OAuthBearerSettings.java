package io.leasehold.proxy.security;

import java.time.Duration;
import java.util.List;

/**
 * What an OAUTHBEARER token must satisfy on the listener: signed by one of {@code keys}, issued by
 * {@code issuer} and for one of {@code audience} (not checked when {@code null} / empty), not
 * expired or not yet valid beyond {@code clockSkew}, and naming its principal in the string
 * claim {@code principalClaim}.
 */
public record OAuthBearerSettings(VerificationKeys keys, String issuer, List<String> audience,
                                  String principalClaim, Duration clockSkew) {
    public OAuthBearerSettings {
        audience = List.copyOf(audience);
    }
}
