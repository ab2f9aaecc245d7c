package io.leasehold.proxy.security;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The mounted users file, reloaded when its content changes. Authentication asks for the
 * current users, an immutable directory, and never waits for the file: {@link #reloadIfChanged()}
 * re-reads it from a {@link UsersFileWatcher} thread, off the event loops (a Kubernetes Secret
 * update swaps the file behind a symlink, so the bytes are compared, not timestamps). A changed
 * file that does not parse is reported and the previous users stay in force.
 */
public final class UsersFile {
    private static final Logger LOG = LoggerFactory.getLogger(UsersFile.class);

    private final Path path;
    private final UsersFileParser parser = new UsersFileParser();
    /** Only the watcher thread touches it after loading. */
    private byte[] loadedBytes;
    private volatile UserDirectory users;

    private UsersFile(Path path) {
        this.path = path;
    }


    /**
     * Loads {@code path} now.
     *
     * @throws UsersFileException when the file cannot be read or parsed: the proxy must not start with it
     */
    public static UsersFile load(Path path) throws UsersFileException {
        UsersFile file = new UsersFile(path);
        byte[] bytes = file.read();
        file.install(bytes, file.parser.parse(new String(bytes, StandardCharsets.UTF_8), path.toString()));
        return file;
    }

    /** The users in force; reads no file. */
    public UserDirectory current() {
        return users;
    }

    /** Re-reads the file and installs its users if its content changed and it parses. */
    synchronized void reloadIfChanged() {
        byte[] bytes;
        try {
            bytes = read();
        } catch (UsersFileException e) {
            LOG.warn("Keeping the previous users: {}", e.getMessage());
            return;
        }
        if (Arrays.equals(bytes, loadedBytes)) {
            return;
        }
        try {
            install(bytes, parser.parse(new String(bytes, StandardCharsets.UTF_8), path.toString()));
            LOG.info("Reloaded the users file {}: {} users", path, users.size());
        } catch (UsersFileException e) {
            LOG.warn("Keeping the previous users: the changed users file is not usable: {}", e.getMessage());
            // Remember the bad bytes so the same problem is reported once, not on every check.
            loadedBytes = bytes;
        }
    }

    private void install(byte[] bytes, UserDirectory parsed) {
        loadedBytes = bytes;
        users = parsed;
    }

    private byte[] read() throws UsersFileException {
        try {
            return Files.readAllBytes(path);
        } catch (IOException e) {
            throw new UsersFileException(List.of(path + ": cannot read the users file: " + e));
        }
    }
}
