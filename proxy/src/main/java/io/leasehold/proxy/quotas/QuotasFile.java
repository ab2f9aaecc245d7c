package io.leasehold.proxy.quotas;

import io.leasehold.proxy.files.FileContents;
import io.leasehold.proxy.files.MountedFileWatcher;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The mounted quotas file, reloaded through a {@link MountedFileWatcher} as the ACL file is: a
 * changed file that parses swaps its {@link QuotaRules} in at once; one that does not is logged
 * with its problems, counted, and the previous rules stay in force. Requests read the current
 * rules without locking.
 */
public final class QuotasFile {
    private final Path path;
    private final QuotasFileParser parser = new QuotasFileParser();
    private final AtomicReference<QuotaRules> rules = new AtomicReference<>();
    private final FileContents loaded;

    private QuotasFile(Path path, FileContents loaded) {
        this.path = path;
        this.loaded = loaded;
    }

    /**
     * Loads {@code path} now; {@link #reloadWith} starts the reloads.
     *
     * @throws QuotasFileException when the file cannot be read or parsed: the proxy must not start with it
     */
    public static QuotasFile load(Path path) throws QuotasFileException {
        FileContents contents = FileContents.read(List.of(path));
        if (!contents.readable()) {
            throw new QuotasFileException(List.of(path + ": cannot read the quotas file: " + contents.problem()));
        }
        QuotasFile file = new QuotasFile(path, contents);
        file.rules.set(file.parse(contents));
        return file;
    }

    /** Has {@code watcher} reload the rules when the file changes, counting reloads in {@code outcomes}. */
    public void reloadWith(MountedFileWatcher watcher, MountedFileWatcher.Outcomes outcomes) {
        watcher.watch("quotas file", loaded, contents -> {
            QuotaRules parsed = parse(contents);
            rules.set(parsed);
            return parsed.entries().size() + " entries";
        }, outcomes);
    }

    /** The rules in force. */
    public QuotaRules current() {
        return rules.get();
    }

    /** Where the file is, for messages that send operators to it. */
    public Path path() {
        return path;
    }

    private QuotaRules parse(FileContents contents) throws QuotasFileException {
        return parser.parse(contents.text(0), path.toString());
    }
}
