package io.leasehold.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One child process started by the harness. Its stdout is copied to {@code <name>.out} and
 * watched for the {@code READY host:port} line the contract promises; stderr goes to
 * {@code <name>.err}. Signals are sent to the process itself, so a paused process stays paused
 * until {@link #resume()}, and {@link #close()} ends it whatever state it is in.
 */
public final class ManagedProcess implements AutoCloseable {

    private static final String READY_PREFIX = "READY ";
    private static final Duration KILL_WAIT = Duration.ofSeconds(10);

    private final String name;
    private final Process process;
    private final Path stdoutLog;
    private final Path stderrLog;
    private final CompletableFuture<String> ready = new CompletableFuture<>();
    /** A JVM that writes a class-data archive as it exits ({@link ClassArchives}). */
    private final boolean writesClassArchive;

    private ManagedProcess(String name, Process process, Path stdoutLog, Path stderrLog, boolean writesClassArchive) {
        this.name = name;
        this.process = process;
        this.stdoutLog = stdoutLog;
        this.stderrLog = stderrLog;
        this.writesClassArchive = writesClassArchive;
    }

    /** Starts {@code command} with logs under {@code logDir}, named after {@code name}. */
    public static ManagedProcess start(String name, List<String> command, Path logDir, Map<String, String> environment) {
        Path stdout = logDir.resolve(name + ".out");
        Path stderr = logDir.resolve(name + ".err");
        try {
            Files.createDirectories(logDir);
            ProcessBuilder builder = new ProcessBuilder(command)
                    .redirectError(ProcessBuilder.Redirect.appendTo(stderr.toFile()));
            builder.environment().putAll(environment);
            Files.writeString(stderr, "$ " + String.join(" ", command) + System.lineSeparator(), StandardCharsets.UTF_8);
            ManagedProcess managed = new ManagedProcess(name, builder.start(), stdout, stderr,
                    ClassArchives.writesArchive(command));
            managed.pumpStdout();
            return managed;
        } catch (IOException e) {
            throw new UncheckedIOException("could not start " + name + ": " + String.join(" ", command), e);
        }
    }

    /** The name this process was started with (also the log file name). */
    public String name() {
        return name;
    }

    /** The operating system process id. */
    public long pid() {
        return process.pid();
    }

    /** Whether the process has not exited (a paused process is alive). */
    public boolean isAlive() {
        return process.isAlive();
    }

    /** The exit code, once exited. */
    public Optional<Integer> exitCode() {
        return process.isAlive() ? Optional.empty() : Optional.of(process.exitValue());
    }

    /**
     * Waits for the {@code READY host:port} line and returns {@code host:port}. Fails with the
     * log tail if the process exits first or the line does not come in time.
     */
    public String awaitReady(Duration timeout) {
        try {
            return ready.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new IllegalStateException(name + " did not print READY within " + timeout + describeLogs(), e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(name + " " + e.getCause().getMessage() + describeLogs(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + name + " to be ready", e);
        }
    }

    /** SIGKILL, then waits for the exit. */
    public void kill() {
        process.destroyForcibly();
        awaitExit(KILL_WAIT);
    }

    /** SIGSTOP: the process freezes (its etcd lease keep-alives stop too). */
    public void pause() {
        signal("STOP");
    }

    /** SIGCONT: a paused process continues where it stopped. */
    public void resume() {
        signal("CONT");
    }

    /**
     * SIGTERM (graceful shutdown) and waits up to {@code timeout}; returns the exit code. A
     * process that does not exit in time is killed and this fails, since the contract says
     * SIGTERM ends the process.
     */
    public int terminate(Duration timeout) {
        process.destroy();
        if (!waitFor(timeout)) {
            kill();
            throw new IllegalStateException(name + " did not exit within " + timeout + " of SIGTERM" + describeLogs());
        }
        return process.exitValue();
    }

    /** Waits for the process to exit; true if it did within {@code timeout}. */
    public boolean waitFor(Duration timeout) {
        try {
            return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + name + " to exit", e);
        }
    }

    /** Where stdout is copied. */
    public Path stdoutLog() {
        return stdoutLog;
    }

    /** Where stderr is written. */
    public Path stderrLog() {
        return stderrLog;
    }

    /** The last {@code lines} lines of stderr (where the Java processes log). */
    public String stderrTail(int lines) {
        return tail(stderrLog, lines);
    }

    /**
     * Kills the process if it is still running (paused or not). A JVM writing a class-data archive
     * is resumed and sent SIGTERM instead, since it writes the archive as it exits, and killed
     * only if it does not exit in time.
     */
    @Override
    public void close() {
        if (process.isAlive() && writesClassArchive) {
            try {
                resume();
            } catch (IllegalStateException exited) {
                return;
            }
            process.destroy();
            if (waitFor(KILL_WAIT)) {
                return;
            }
        }
        if (process.isAlive()) {
            kill();
        }
    }

    @Override
    public String toString() {
        return name + "(pid " + pid() + (isAlive() ? "" : ", exited " + process.exitValue()) + ")";
    }

    private void awaitExit(Duration timeout) {
        if (!waitFor(timeout)) {
            throw new IllegalStateException(name + " (pid " + pid() + ") did not exit within " + timeout + " of SIGKILL");
        }
    }

    private void signal(String signal) {
        if (!process.isAlive()) {
            throw new IllegalStateException("cannot send SIG" + signal + " to " + name + ": it has exited with "
                    + process.exitValue());
        }
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid())).redirectErrorStream(true).start();
            String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + pid() + " failed: " + output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not run kill -" + signal, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while signalling " + name, e);
        }
    }

    private void pumpStdout() {
        Thread pump = new Thread(this::copyStdout, name + "-stdout");
        pump.setDaemon(true);
        pump.start();
    }

    private void copyStdout() {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
             Writer log = Files.newBufferedWriter(stdoutLog, StandardCharsets.UTF_8)) {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                log.write(line);
                log.write(System.lineSeparator());
                log.flush();
                if (line.startsWith(READY_PREFIX) && !ready.isDone()) {
                    ready.complete(line.substring(READY_PREFIX.length()).trim());
                }
            }
        } catch (IOException e) {
            ready.completeExceptionally(new IllegalStateException("stdout could not be read: " + e));
        }
        ready.completeExceptionally(new IllegalStateException("closed stdout (exit code "
                + process.onExit().join().exitValue() + ") before printing READY"));
    }

    private String describeLogs() {
        return "; stderr " + stderrLog + " ends with:" + System.lineSeparator() + stderrTail(30);
    }

    private static String tail(Path file, int lines) {
        try {
            if (!Files.exists(file)) {
                return "(no log)";
            }
            List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
            return String.join(System.lineSeparator(), all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(log unreadable: " + e + ")";
        }
    }
}
