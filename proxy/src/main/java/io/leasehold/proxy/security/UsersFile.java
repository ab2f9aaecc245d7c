package io.leasehold.proxy.security;

import io.leasehold.proxy.files.FileContents;
import io.leasehold.proxy.files.MountedFileWatcher;
import java.nio.file.Path;
import java.util.List;

/**
 * The mounted users file, reloaded when its content changes. Authentication asks for the
 * current users, an immutable directory, and never waits for the file: a
 * {@link MountedFileWatcher} re-reads it off the event loops. A changed file that does not parse
 * is reported and the previous users stay in force.
 */
public final class UsersFile {
    private final Path path;
    private final UsersFileParser parser = new UsersFileParser();
    private final FileContents loaded;
    private volatile UserDirectory users;

    private UsersFile(Path path, FileContents loaded, UserDirectory users) {
        this.path = path;
        this.loaded = loaded;
        this.users = users;
    }

    /**
     * Loads {@code path} now.
     *
     * @throws UsersFileException when the file cannot be read or parsed: the proxy must not start with it
     */
    public static UsersFile load(Path path) throws UsersFileException {
        FileContents contents = FileContents.read(List.of(path));
        if (!contents.readable()) {
            throw new UsersFileException(List.of(path + ": cannot read the users file: " + contents.problem()));
        }
        return new UsersFile(path, contents, new UsersFileParser().parse(contents.text(0), path.toString()));
    }

    /** The users in force; reads no file. */
    public UserDirectory current() {
        return users;
    }

    /** Has {@code watcher} reload the users when the file changes. */
    public void reloadWith(MountedFileWatcher watcher) {
        watcher.watch("users file", loaded, contents -> {
            UserDirectory parsed = parser.parse(contents.text(0), path.toString());
            users = parsed;
            return parsed.size() + " users";
        }, MountedFileWatcher.Outcomes.UNCOUNTED);
    }
}
