package io.leasehold.routing.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real etcd server process on free loopback ports (from {@link LoopbackPorts}) with its own temporary data directory, for
 * tests. It can be stopped and restarted on the same data and ports (fault tests), and {@link
 * #close()} kills it and deletes the data directory.
 *
 * <p>The binary is found through {@code scripts/ensure-etcd} (which installs Debian's
 * {@code etcd-server} when possible), or taken from the {@code leasehold.etcd.binary} system
 * property.
 */
public final class EtcdServer implements AutoCloseable {

    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(30);

    private final Path dataDir;
    private final Path logFile;
    private final int clientPort;
    private final int peerPort;
    private final String binary;
    private Process process;

    private EtcdServer(String binary, Path dataDir, int clientPort, int peerPort) {
        this.binary = binary;
        this.dataDir = dataDir;
        this.logFile = dataDir.resolveSibling(dataDir.getFileName() + ".log");
        this.clientPort = clientPort;
        this.peerPort = peerPort;
    }

    /** Starts a fresh etcd on free loopback ports and waits until it answers its health check. */
    public static EtcdServer start() {
        try {
            Path base = Files.createTempDirectory("leasehold-etcd-");
            int[] ports = LoopbackPorts.take(2);
            EtcdServer server = new EtcdServer(findBinary(), base.resolve("data"), ports[0], ports[1]);
            server.launch();
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException("could not prepare a temporary etcd data directory", e);
        }
    }

    /** The client URL, e.g. {@code http://127.0.0.1:34567}. */
    public String endpoint() {
        return "http://127.0.0.1:" + clientPort;
    }

    /** Whether the etcd process is currently running. */
    public boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** Stops the process (SIGKILL) but keeps its data, so {@link #restart()} brings back the same state. */
    public void stop() {
        if (process == null) {
            return;
        }
        process.destroyForcibly();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("etcd did not exit within 10s of SIGKILL");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while stopping etcd", e);
        }
        process = null;
    }

    /** Starts the server again on the same ports and data directory. */
    public void restart() {
        stop();
        launch();
    }

    /**
     * Compacts the key-value history up to the current revision, so that watches from older
     * revisions fail with a compaction error. Returns the revision compacted to.
     */
    public long compact() {
        long revision = currentRevision();
        runEtcdctl("compaction", "--physical", Long.toString(revision));
        return revision;
    }

    /** The cluster's current revision, read with etcdctl. */
    public long currentRevision() {
        String json = runEtcdctl("endpoint", "status", "-w", "json");
        int at = json.indexOf("\"revision\":");
        if (at < 0) {
            throw new IllegalStateException("no revision in etcdctl output: " + json);
        }
        int start = at + "\"revision\":".length();
        int end = start;
        while (end < json.length() && Character.isDigit(json.charAt(end))) {
            end++;
        }
        return Long.parseLong(json.substring(start, end));
    }

    @Override
    public void close() {
        stop();
        deleteRecursively(dataDir.getParent());
    }

    private void launch() {
        List<String> command = new ArrayList<>(List.of(
                binary,
                "--name", "leasehold-test",
                "--data-dir", dataDir.toString(),
                "--listen-client-urls", endpoint(),
                "--advertise-client-urls", endpoint(),
                "--listen-peer-urls", "http://127.0.0.1:" + peerPort,
                "--initial-advertise-peer-urls", "http://127.0.0.1:" + peerPort,
                "--initial-cluster", "leasehold-test=http://127.0.0.1:" + peerPort,
                "--initial-cluster-state", Files.exists(dataDir) ? "existing" : "new",
                "--log-level", "warn"));
        try {
            process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("could not start etcd (" + binary + ")", e);
        }
        awaitHealthy();
    }

    private void awaitHealthy() {
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("etcd exited with code " + process.exitValue()
                        + " during start-up; its log is " + logFile + ":\n" + readLog());
            }
            if (healthy()) {
                return;
            }
            sleep(50);
        }
        throw new IllegalStateException("etcd at " + endpoint() + " was not healthy within "
                + STARTUP_TIMEOUT + "; its log is " + logFile + ":\n" + readLog());
    }

    private boolean healthy() {
        try {
            HttpURLConnection connection =
                    (HttpURLConnection) URI.create(endpoint() + "/health").toURL().openConnection();
            connection.setConnectTimeout(500);
            connection.setReadTimeout(500);
            try {
                return connection.getResponseCode() == 200
                        && new String(connection.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
                                .contains("true");
            } finally {
                connection.disconnect();
            }
        } catch (IOException e) {
            return false;
        }
    }

    private String runEtcdctl(String... args) {
        return etcdctl(binary, List.of("--endpoints", endpoint()), args);
    }

    /**
     * Runs the {@code etcdctl} beside {@code etcdBinary} with {@code connection} flags (endpoints,
     * TLS files) and {@code args}; returns its output, or fails with it unless it exits 0.
     */
    public static String etcdctl(String etcdBinary, List<String> connection, String... args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(etcdBinary).resolveSibling("etcdctl").toString());
        command.addAll(connection);
        command.addAll(List.of(args));
        try {
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
            builder.environment().put("ETCDCTL_API", "3");
            Process ctl = builder.start();
            String output = new String(ctl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!ctl.waitFor(30, TimeUnit.SECONDS) || ctl.exitValue() != 0) {
                throw new IllegalStateException("etcdctl " + String.join(" ", args) + " failed: " + output);
            }
            return output;
        } catch (IOException e) {
            throw new UncheckedIOException("could not run etcdctl", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running etcdctl", e);
        }
    }

    private String readLog() {
        try {
            return Files.exists(logFile) ? Files.readString(logFile) : "(no log)";
        } catch (IOException e) {
            return "(log unreadable: " + e + ")";
        }
    }

    /**
     * The etcd binary: the {@code leasehold.etcd.binary} system property, else what
     * {@code scripts/ensure-etcd} provides (installing Debian's etcd-server when it can).
     */
    public static String findBinary() {
        String configured = System.getProperty("leasehold.etcd.binary");
        if (configured != null && !configured.isBlank()) {
            return configured;
        }
        Path script = locateEnsureScript();
        try {
            Process ensure = new ProcessBuilder(script.toString())
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
            String output = new String(ensure.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (ensure.waitFor() != 0 || output.isEmpty()) {
                throw new IllegalStateException(script + " could not provide etcd (exit " + ensure.exitValue()
                        + "); see its message above");
            }
            String[] lines = output.split("\n");
            return lines[lines.length - 1].trim();
        } catch (IOException e) {
            throw new UncheckedIOException("could not run " + script, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + script, e);
        }
    }

    /** Walks up from the working directory (a module directory under Maven) to the repository's scripts/. */
    private static Path locateEnsureScript() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve("scripts").resolve("ensure-etcd");
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        throw new IllegalStateException("scripts/ensure-etcd not found above " + Path.of("").toAbsolutePath());
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for etcd", e);
        }
    }

    private static void deleteRecursively(Path root) {
        if (root == null || !Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException("could not delete " + root, e);
        }
    }
}
