package io.leasehold.proxy.security;

import java.util.Map;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;

/**
 * One user of the SASL listener: a password (usable with PLAIN, and turned into SCRAM
 * credentials when the users file is loaded) or only SCRAM credentials per mechanism.
 * {@link #toString()} names the user only, so a credential never reaches a log line.
 *
 * @param password the clear-text password, {@code null} for SCRAM-only users
 */
public record UserCredentials(String name, String password, Map<ScramMechanism, ScramCredential> scram) {
    public UserCredentials {
        scram = Map.copyOf(scram);
    }

    @Override
    public String toString() {
        return "User[" + name + "]";
    }
}
