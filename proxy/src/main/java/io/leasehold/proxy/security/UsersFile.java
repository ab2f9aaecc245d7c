package io.leasehold.proxy.security;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The mounted users file, reloaded when its content changes. Authentication asks for the
 * current users; at most once per {@code checkInterval} that re-reads the file (a Kubernetes
 * Secret update swaps the file behind a symlink, so the bytes are compared, not timestamps).
 * A changed file that does not parse is reported and the previous users stay in force.
 */
public final class UsersFile {
    private static final Logger LOG = LoggerFactory.getLogger(UsersFile.class);

    private final Path path;
    private final Duration checkInterval;
    private final UsersFileParser parser = new UsersFileParser();
    private byte[] loadedBytes;
    private UserDirectory users;
    private long checkedAtNanos;

    private UsersFile(Path path, Duration checkInterval) {
        this.path = path;
        this.checkInterval = checkInterval;
    }

    /**
     * Loads {@code path} now.
     *
     * @throws UsersFileException when the file cannot be read or parsed: the proxy must not start with it
     */
    public static UsersFile load(Path path, Duration checkInterval) throws UsersFileException {
        UsersFile file = new UsersFile(path, checkInterval);
        byte[] bytes = file.read();
        file.install(bytes, file.parser.parse(new String(bytes, StandardCharsets.UTF_8), path.toString()));
        return file;
    }

    /** The users in force, after reloading the file if it changed since the last check. */
    public synchronized UserDirectory current() {
        long now = System.nanoTime();
        if (now - checkedAtNanos >= checkInterval.toNanos()) {
            checkedAtNanos = now;
            reloadIfChanged();
        }
        return users;
    }

    private void reloadIfChanged() {
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
        checkedAtNanos = System.nanoTime();
    }

    private byte[] read() throws UsersFileException {
        try {
            return Files.readAllBytes(path);
        } catch (IOException e) {
            throw new UsersFileException(List.of(path + ": cannot read the users file: " + e));
        }
    }
}
