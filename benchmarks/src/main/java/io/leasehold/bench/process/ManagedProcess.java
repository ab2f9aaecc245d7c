package io.leasehold.bench.process;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A child process whose combined output goes to a log file, which can be waited on for a
 * {@code READY host:port} line and stopped gracefully (SIGTERM, then SIGKILL after a grace period).
 */
public final class ManagedProcess implements AutoCloseable {

    private static final String READY_PREFIX = "READY ";

    private final String name;
    private final Process process;
    private final Path logFile;
    private final CompletableFuture<String> readyLine = new CompletableFuture<>();
    /** Kills the child if this JVM is stopped (Ctrl-C) before {@link #close()} ran. */
    private final Thread killOnExit;

    private ManagedProcess(String name, Process process, Path logFile) {
        this.name = name;
        this.process = process;
        this.logFile = logFile;
        this.killOnExit = new Thread(process::destroyForcibly, name + "-kill-on-exit");
    }

    /** Starts {@code command}; stdout and stderr are appended to {@code logFile}. */
    public static ManagedProcess start(String name, List<String> command, Path logFile) {
        try {
            Files.createDirectories(logFile.getParent());
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            ManagedProcess managed = new ManagedProcess(name, process, logFile);
            Thread pump = new Thread(managed::pumpOutput, name + "-output");
            pump.setDaemon(true);
            pump.start();
            Runtime.getRuntime().addShutdownHook(managed.killOnExit);
            return managed;
        } catch (IOException e) {
            throw new UncheckedIOException("could not start " + name + ": " + String.join(" ", command), e);
        }
    }

    /** The operating-system process id, for {@link ProcessStats}. */
    public long pid() {
        return process.pid();
    }

    public String name() {
        return name;
    }

    public Path logFile() {
        return logFile;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Waits for the process to print {@code READY host:port}; returns {@code host:port}. */
    public String awaitReady(Duration timeout) {
        try {
            return readyLine.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new IllegalStateException(name + " did not print READY within " + timeout
                    + "; alive=" + process.isAlive() + ", log " + logFile + ":\n" + logTail());
        } catch (ExecutionException e) {
            throw new IllegalStateException(name + " exited before it was ready (exit code "
                    + exitCodeOrUnknown() + "); log " + logFile + ":\n" + logTail());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + name, e);
        }
    }

    /** Waits for the process to end by itself; returns its exit code. */
    public int awaitExit(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(name + " still running after " + timeout + "; log " + logFile);
            }
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + name + " to exit", e);
        }
    }

    /** The last lines of the log, for error messages. */
    public String logTail() {
        try {
            if (!Files.exists(logFile)) {
                return "(no output)";
            }
            List<String> lines = Files.readAllLines(logFile, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(log unreadable: " + e + ")";
        }
    }

    /** SIGTERM, wait up to 20 s for a graceful exit, then SIGKILL. */
    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(killOnExit);
        } catch (IllegalStateException e) {
            // The JVM is already shutting down and the hook is running or has run.
        }
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private void pumpOutput() {
        try (BufferedReader reader = new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
                Writer log = Files.newBufferedWriter(logFile, StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
            String line;
            while ((line = reader.readLine()) != null) {
                if (!readyLine.isDone() && line.startsWith(READY_PREFIX)) {
                    readyLine.complete(line.substring(READY_PREFIX.length()).trim());
                }
                log.write(line);
                log.write('\n');
                log.flush();
            }
        } catch (IOException e) {
            readyLine.completeExceptionally(e);
        }
        readyLine.completeExceptionally(new IllegalStateException(name + " output ended"));
    }

    private String exitCodeOrUnknown() {
        try {
            return process.waitFor(2, TimeUnit.SECONDS) ? Integer.toString(process.exitValue()) : "still running";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }
}
