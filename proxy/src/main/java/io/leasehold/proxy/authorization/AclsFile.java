package io.leasehold.proxy.authorization;

import io.leasehold.proxy.files.FileContents;
import io.leasehold.proxy.files.MountedFileWatcher;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The mounted ACL file, reloaded through a {@link MountedFileWatcher}: when its content changed
 * it is parsed and the new immutable {@link AclRules} swapped in at once. Requests read the current rules without locking and never wait
 * for a reload. A changed file that does not parse is logged with its problems, counted, and the
 * previous rules stay in force.
 */
public final class AclsFile {
    private final Path path;
    private final AclsFileParser parser = new AclsFileParser();
    private final AtomicReference<AclRules> rules = new AtomicReference<>();
    private final FileContents loaded;

    private AclsFile(Path path, FileContents loaded) {
        this.path = path;
        this.loaded = loaded;
    }

    /**
     * Loads {@code path} now; {@link #reloadWith} starts the reloads.
     *
     * @throws AclsFileException when the file cannot be read or parsed: the proxy must not start with it
     */
    public static AclsFile load(Path path) throws AclsFileException {
        FileContents contents = FileContents.read(List.of(path));
        if (!contents.readable()) {
            throw new AclsFileException(List.of(path + ": cannot read the ACL file: " + contents.problem()));
        }
        AclsFile file = new AclsFile(path, contents);
        file.rules.set(file.parse(contents));
        return file;
    }

    /** Has {@code watcher} reload the rules when the file changes, counting reloads in {@code metrics}. */
    public void reloadWith(MountedFileWatcher watcher, AuthorizationMetrics metrics) {
        watcher.watch("ACL file", loaded, contents -> {
            AclRules parsed = parse(contents);
            rules.set(parsed);
            return parsed.size() + " rules";
        }, metrics::reloaded);
    }

    /** The rules in force. */
    public AclRules current() {
        return rules.get();
    }

    private AclRules parse(FileContents contents) throws AclsFileException {
        return AclRules.of(parser.parse(contents.text(0), path.toString()));
    }
}
