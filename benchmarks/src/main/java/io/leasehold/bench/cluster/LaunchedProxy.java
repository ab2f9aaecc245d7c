package io.leasehold.bench.cluster;

import io.leasehold.testing.JavaCommand;
import io.leasehold.testing.ManagedProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A proxy under measurement, in its own JVM: where clients bootstrap, its process (for CPU and
 * memory), and the directory holding its configuration. {@link #close()} stops it the way an
 * operator would (SIGTERM, then SIGKILL) and deletes the directory; its log stays in the log
 * directory.
 */
public final class LaunchedProxy implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(30);
    /** The first "used" figure of GC.heap_info: the whole heap's, before the per-region lines. */
    private static final Pattern HEAP_USED = Pattern.compile("used (\\d+)K");

    private final Path baseDir;
    private final int port;
    private final ManagedProcess process;

    private LaunchedProxy(Path baseDir, int port, ManagedProcess process) {
        this.baseDir = baseDir;
        this.port = port;
        this.process = process;
    }

    /** A fresh directory for one proxy's configuration. */
    static Path directory(String prefix) {
        try {
            return Files.createTempDirectory(prefix);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a directory for " + prefix, e);
        }
    }

    /** Writes {@code content} to {@code file} in a proxy's directory, deleting the directory if that fails. */
    static void writeConfig(Path baseDir, Path file, String content) {
        try {
            Files.writeString(file, content);
        } catch (IOException e) {
            FileTrees.deleteRecursively(baseDir);
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    /** Starts {@code mainClass} and waits until it prints {@code READY}; stops it and cleans up if it does not. */
    static LaunchedProxy start(String name, JavaCommand java, String mainClass, List<String> arguments, Path baseDir,
            int port, Path logDir, Map<String, String> environment) {
        ManagedProcess process = ManagedProcess.start(name, java.command(mainClass, arguments), logDir, environment);
        LaunchedProxy proxy = new LaunchedProxy(baseDir, port, process);
        try {
            process.awaitReady(START_TIMEOUT);
            return proxy;
        } catch (RuntimeException e) {
            proxy.close();
            throw e;
        }
    }

    public String bootstrap() {
        return "127.0.0.1:" + port;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Writes the flight recording named {@code recordingName} to {@code file} with {@code jcmd}
     * while the proxy runs (a SIGTERM path that halts the JVM would skip a dump on exit).
     */
    public void dumpFlightRecording(String recordingName, Path file) {
        String output = jcmd("JFR.dump", "name=" + recordingName, "filename=" + file);
        if (!Files.exists(file)) {
            throw new IllegalStateException("jcmd JFR.dump wrote no " + file + ": " + output.trim());
        }
    }

    /**
     * Runs a full GC in the proxy ({@code jcmd GC.run}) and returns the heap it still uses, in
     * bytes, as {@code jcmd GC.heap_info} reports it ({@code ... used 12345K}).
     */
    public long heapUsedAfterGc() {
        jcmd("GC.run");
        Matcher used = HEAP_USED.matcher(jcmd("GC.heap_info"));
        if (!used.find()) {
            throw new IllegalStateException("jcmd GC.heap_info names no heap use for process " + process.pid());
        }
        return Long.parseLong(used.group(1)) * 1024;
    }

    private String jcmd(String... arguments) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                Long.toString(process.pid())));
        command.addAll(List.of(arguments));
        try {
            Process jcmd = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!jcmd.waitFor(60, TimeUnit.SECONDS) || jcmd.exitValue() != 0) {
                throw new IllegalStateException("jcmd " + String.join(" ", arguments) + " failed: " + output.trim());
            }
            return output;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run jcmd", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running jcmd " + String.join(" ", arguments), e);
        }
    }

    /** SIGTERM first (the proxy drains and exits), SIGKILL if that fails. */
    @Override
    public void close() {
        close(SHUTDOWN_TIMEOUT);
    }

    /**
     * As {@link #close()}, waiting up to {@code timeout} after SIGTERM, e.g. for a JVM that
     * writes an archive at exit.
     */
    public void close(Duration timeout) {
        if (process.isAlive()) {
            try {
                process.terminate(timeout);
            } catch (IllegalStateException e) {
                // terminate() already killed it after the timeout; its log names the cause.
            }
        }
        process.close();
        FileTrees.deleteRecursively(baseDir);
    }
}
