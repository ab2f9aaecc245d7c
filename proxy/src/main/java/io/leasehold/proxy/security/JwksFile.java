package io.leasehold.proxy.security;

import io.leasehold.proxy.files.FileContents;
import io.leasehold.proxy.files.MountedFileWatcher;
import java.nio.file.Path;
import java.util.List;
import org.jose4j.jwk.JsonWebKey;

/**
 * A mounted JWKS file ({@code listener.sasl.oauthbearer.jwksFile}), reloaded through a
 * {@link MountedFileWatcher} when its content changes, so an identity provider's new signing key
 * is taken without a restart. A changed file that is not a usable key set is reported and the
 * previous keys stay in force.
 */
public final class JwksFile implements VerificationKeys {
    private final Path path;
    private final FileContents loaded;
    private volatile List<JsonWebKey> keys;

    private JwksFile(Path path, FileContents loaded, List<JsonWebKey> keys) {
        this.path = path;
        this.loaded = loaded;
        this.keys = keys;
    }

    /**
     * Loads {@code path} now.
     *
     * @throws JwksException when it cannot be read or holds no usable key: the proxy must not start with it
     */
    public static JwksFile load(Path path) throws JwksException {
        FileContents contents = FileContents.read(List.of(path));
        if (!contents.readable()) {
            throw new JwksException(path + ": cannot read the JWKS file: " + contents.problem());
        }
        return new JwksFile(path, contents, JwksDocument.parse(contents.text(0), path.toString()));
    }

    @Override
    public List<JsonWebKey> current() {
        return keys;
    }

    /** Has {@code watcher} reload the keys when the file changes. */
    @Override
    public void keepCurrent(MountedFileWatcher watcher, JwksMetrics metrics) {
        watcher.watch("JWKS file", loaded, contents -> {
            List<JsonWebKey> parsed = JwksDocument.parse(contents.text(0), path.toString());
            keys = parsed;
            return parsed.size() + " keys";
        }, usable -> metrics.refreshed("file", usable));
    }

    /** Nothing to do: a new key arrives with the file's next change, which the watcher picks up. */
    @Override
    public void keyNotFound() {
    }

    /** Nothing to release: the watcher owns the thread. */
    @Override
    public void close() {
    }
}
