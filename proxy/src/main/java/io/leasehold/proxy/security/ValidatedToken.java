package io.leasehold.proxy.security;

import java.time.Instant;

/** What a valid OAUTHBEARER token says: who the client is and until when. */
record ValidatedToken(String principal, Instant expiresAt) {
}
