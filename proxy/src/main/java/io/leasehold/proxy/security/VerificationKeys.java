package io.leasehold.proxy.security;

import io.leasehold.proxy.files.MountedFileWatcher;
import java.util.List;
import org.jose4j.jwk.JsonWebKey;

/**
 * The public keys OAUTHBEARER tokens are checked against, as currently in force (a JWKS file or
 * URL); reading them does no I/O.
 */
public interface VerificationKeys extends AutoCloseable {
    /** The keys in force now (empty while none could be loaded). */
    List<JsonWebKey> current();

    /** Keeps the keys current from now on: through {@code watcher} for a file, by its own refreshing otherwise. */
    void keepCurrent(MountedFileWatcher watcher);

    /** Stops refreshing the keys. */
    @Override
    void close();
}
