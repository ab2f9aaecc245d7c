package io.leasehold.proxy.tls;

import io.leasehold.proxy.config.ConfigException;
import io.leasehold.proxy.config.TlsMaterial;
import io.leasehold.proxy.files.FileContents;
import io.leasehold.proxy.files.MountedFileWatcher;
import io.netty.handler.ssl.SslContext;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A TLS context that follows its files: a {@link MountedFileWatcher} has it rebuilt when the
 * content of any of them changed (a rotated Secret), and {@link #context()} hands the newest one
 * to each new connection; connections already open keep the context they started with. Unusable
 * new files (half-written, a key that is not the certificate's) leave the previous context in use
 * and are reported once per change.
 */
public final class ReloadingTls {

    /** Reads the files and builds the context. */
    @FunctionalInterface
    public interface Loader {
        TlsMaterial load() throws ConfigException;
    }

    private final String name;
    private final Loader loader;
    private final FileContents loaded;
    private volatile TlsMaterial current;

    private ReloadingTls(String name, Loader loader, FileContents loaded, TlsMaterial first) {
        this.name = name;
        this.loader = loader;
        this.loaded = loaded;
        this.current = first;
    }

    /**
     * Loads the context for the first time.
     *
     * @param name  what the context is for, in log lines (e.g. "Kafka listener")
     * @param files the files {@code loader} reads ({@code null} entries, keys not set, are ignored)
     * @throws ConfigException if the files are unusable now
     */
    public static ReloadingTls load(String name, List<Path> files, Loader loader) throws ConfigException {
        FileContents contents = FileContents.read(files.stream().filter(Objects::nonNull).toList());
        return new ReloadingTls(name, loader, contents, loader.load());
    }

    /** The context for the next connection. */
    public SslContext context() {
        return current.context();
    }

    /** The expiry of each certificate role of the context in use. */
    public Map<String, Instant> expiries() {
        return current.expiries();
    }

    /** Has {@code watcher} rebuild the context when a file's content changes. */
    public void reloadWith(MountedFileWatcher watcher) {
        watcher.watch(name + " TLS certificates", loaded, contents -> {
            current = loader.load();
            return "new connections use certificates expiring " + current.expiries();
        }, MountedFileWatcher.Outcomes.UNCOUNTED);
    }
}
