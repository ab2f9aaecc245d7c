package io.leasehold.proxy.authorization;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The mounted ACL file, watched by a thread of its own: every {@code checkInterval} it reads the
 * file and, when the bytes changed (a Kubernetes Secret or ConfigMap update swaps the file behind
 * a symlink, so timestamps are not trusted), parses it and swaps the new immutable
 * {@link AclRules} in at once. Requests read the current rules without locking and never wait
 * for a reload. A changed file that does not parse is logged with its problems, counted, and the
 * previous rules stay in force.
 */
public final class AclsFile implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AclsFile.class);

    private final Path path;
    private final AclsFileParser parser = new AclsFileParser();
    private final AtomicReference<AclRules> rules = new AtomicReference<>();
    private final ScheduledExecutorService watcher = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "leasehold-acls-watch");
        thread.setDaemon(true);
        return thread;
    });
    /** The bytes last looked at, good or bad; touched only by the watcher thread after loading. */
    private byte[] seenBytes;

    private AclsFile(Path path) {
        this.path = path;
    }

    /**
     * Loads {@code path} now; {@link #watch} starts the reloads.
     *
     * @throws AclsFileException when the file cannot be read or parsed: the proxy must not start with it
     */
    public static AclsFile load(Path path) throws AclsFileException {
        AclsFile file = new AclsFile(path);
        byte[] bytes = file.read();
        file.rules.set(file.parse(bytes));
        file.seenBytes = bytes;
        return file;
    }

    /** Looks for changes every {@code checkInterval} from now on until {@link #close()}, counting reloads in {@code metrics}. */
    public void watch(Duration checkInterval, AuthorizationMetrics metrics) {
        long millis = checkInterval.toMillis();
        watcher.scheduleWithFixedDelay(() -> reloadIfChanged(metrics), millis, millis, TimeUnit.MILLISECONDS);
    }

    /** The rules in force. */
    public AclRules current() {
        return rules.get();
    }

    private void reloadIfChanged(AuthorizationMetrics metrics) {
        byte[] bytes;
        try {
            bytes = read();
        } catch (AclsFileException e) {
            if (seenBytes != null) {
                LOG.warn("Keeping the previous ACLs: {}", e.getMessage());
                metrics.reloaded(false);
                seenBytes = null;
            }
            return;
        }
        if (Arrays.equals(bytes, seenBytes)) {
            return;
        }
        // Remembered before parsing, so a bad file is reported once, not on every check.
        seenBytes = bytes;
        try {
            AclRules loaded = parse(bytes);
            rules.set(loaded);
            metrics.reloaded(true);
            LOG.info("Reloaded the ACL file {}: {} rules", path, loaded.size());
        } catch (AclsFileException | RuntimeException e) {
            metrics.reloaded(false);
            LOG.warn("Keeping the previous ACLs: the changed ACL file is not usable:{}{}", System.lineSeparator(),
                    e.getMessage());
        }
    }

    private AclRules parse(byte[] bytes) throws AclsFileException {
        return AclRules.of(parser.parse(new String(bytes, StandardCharsets.UTF_8), path.toString()));
    }

    private byte[] read() throws AclsFileException {
        try {
            return Files.readAllBytes(path);
        } catch (IOException e) {
            throw new AclsFileException(List.of(path + ": cannot read the ACL file: " + e));
        }
    }

    @Override
    public void close() {
        watcher.shutdownNow();
    }
}
