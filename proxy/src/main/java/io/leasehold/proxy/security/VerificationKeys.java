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

    /**
     * Keeps the keys current from now on, counting each load in {@code metrics}: through
     * {@code watcher} for a file, by its own fetching otherwise.
     */
    void keepCurrent(MountedFileWatcher watcher, JwksMetrics metrics);

    /**
     * A token named a key id that no key in force has: the identity provider may have published a
     * new key since the keys were last loaded. Returns at once; never does I/O on the caller's thread.
     */
    void keyNotFound();

    /** Stops refreshing the keys. */
    @Override
    void close();
}
