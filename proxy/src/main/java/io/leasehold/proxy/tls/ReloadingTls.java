package io.leasehold.proxy.tls;

import io.leasehold.proxy.config.ConfigException;
import io.leasehold.proxy.config.TlsMaterial;
import io.netty.handler.ssl.SslContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TLS context that follows its files: {@link #reloadIfChanged()} rebuilds it when the content
 * of any of them changed (a rotated Secret), and {@link #context()} hands the newest one to each
 * new connection; connections already open keep the context they started with. Unusable new files
 * (half-written, a key that is not the certificate's) leave the previous context in use and are
 * reported once per change.
 */
public final class ReloadingTls {
    private static final Logger LOG = LoggerFactory.getLogger(ReloadingTls.class);

    /** Reads the files and builds the context. */
    @FunctionalInterface
    public interface Loader {
        TlsMaterial load() throws ConfigException;
    }

    private final String name;
    private final List<Path> files;
    private final Loader loader;
    private volatile TlsMaterial current;
    /** Content digests the last load attempt saw; only the reload thread touches them. */
    private Map<Path, String> seen;

    private ReloadingTls(String name, List<Path> files, Loader loader, TlsMaterial first, Map<Path, String> seen) {
        this.name = name;
        this.files = files;
        this.loader = loader;
        this.current = first;
        this.seen = seen;
    }

    /**
     * Loads the context for the first time.
     *
     * @param name  what the context is for, in log lines (e.g. "Kafka listener")
     * @param files the files {@code loader} reads ({@code null} entries, keys not set, are ignored)
     * @throws ConfigException if the files are unusable now
     */
    public static ReloadingTls load(String name, List<Path> files, Loader loader) throws ConfigException {
        List<Path> watched = files.stream().filter(Objects::nonNull).toList();
        Map<Path, String> seen = digests(watched);
        return new ReloadingTls(name, watched, loader, loader.load(), seen);
    }

    /** The context for the next connection. */
    public SslContext context() {
        return current.context();
    }

    /** The expiry of each certificate role of the context in use. */
    public Map<String, Instant> expiries() {
        return current.expiries();
    }

    /**
     * Rebuilds the context if a file's content changed since the last look; reads files, so it
     * must not run on an event loop.
     *
     * @return whether a new context is now in use
     */
    public boolean reloadIfChanged() {
        Map<Path, String> now = digests(files);
        if (now.equals(seen)) {
            return false;
        }
        seen = now;
        try {
            current = loader.load();
            LOG.info("{} TLS: files changed, new connections use the reloaded certificates (expiries {})", name,
                    current.expiries());
            return true;
        } catch (ConfigException e) {
            LOG.warn("{} TLS: files changed but cannot be used, keeping the previous certificates: {}", name,
                    String.join("; ", e.problems()));
            return false;
        }
    }

    private static Map<Path, String> digests(List<Path> files) {
        Map<Path, String> digests = new HashMap<>();
        for (Path file : files) {
            digests.put(file, digest(file));
        }
        return digests;
    }

    private static String digest(Path file) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file));
            return HexFormat.of().formatHex(hash);
        } catch (IOException e) {
            // Unreadable counts as a state of its own: the load that follows reports why.
            return "unreadable: " + e.getClass().getSimpleName();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
