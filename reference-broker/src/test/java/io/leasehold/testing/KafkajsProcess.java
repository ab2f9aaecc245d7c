package io.leasehold.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One run of the kafkajs test client ({@code tools/kafkajs/leasehold-kafkajs.js}, installed by
 * {@code scripts/ensure-kafkajs}). The client prints one JSON event per stdout line; each is
 * handed to the listener on a reader thread. kafkajs's own log goes to {@code <name>.log}.
 */
public final class KafkajsProcess implements AutoCloseable {

    private static final Path TOOL = Path.of("tools", "kafkajs");
    private static final String SCRIPT = "leasehold-kafkajs.js";
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(15);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String name;
    private final Process process;
    private final BufferedWriter stdin;
    private final Thread reader;
    private final Path log;

    private KafkajsProcess(String name, Process process, Path log, Consumer<JsonNode> listener) {
        this.name = name;
        this.process = process;
        this.log = log;
        this.stdin = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
        this.reader = new Thread(() -> readEvents(listener), name + "-events");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts the client with {@code arguments} (the mode first, e.g. {@code produce --brokers ...}),
     * logging into {@code logDir}.
     */
    public static KafkajsProcess start(String name, List<String> arguments, Path logDir, Consumer<JsonNode> listener) {
        return start(name, arguments, Map.of(), logDir, listener);
    }

    /**
     * Starts the client as {@link #start(String, List, Path, Consumer)} does, with {@code environment}
     * added to its environment (e.g. {@code LEASEHOLD_KAFKAJS_SASL_PASSWORD}, kept off the command line).
     */
    public static KafkajsProcess start(String name, List<String> arguments, Map<String, String> environment,
                                       Path logDir, Consumer<JsonNode> listener) {
        List<String> command = new ArrayList<>(List.of("node", script().toString()));
        command.addAll(arguments);
        Path log = logDir.resolve(name + ".log");
        try {
            Files.createDirectories(logDir);
            Files.writeString(log, "$ " + String.join(" ", command) + System.lineSeparator(), StandardCharsets.UTF_8);
            ProcessBuilder builder = new ProcessBuilder(command)
                    .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
            builder.environment().putAll(environment);
            Process process = builder.start();
            return new KafkajsProcess(name, process, log, listener);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start kafkajs client " + name + ": " + String.join(" ", command), e);
        }
    }

    /**
     * The client script, found by walking up from the working directory (Maven runs tests in the
     * module directory). Fails with the fix when kafkajs is not installed.
     */
    public static Path script() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path tool = dir.resolve(TOOL);
            if (Files.isRegularFile(tool.resolve(SCRIPT))) {
                if (!Files.isRegularFile(tool.resolve("node_modules/kafkajs/package.json"))) {
                    throw new IllegalStateException("kafkajs is not installed in " + tool + ": run scripts/ensure-kafkajs");
                }
                return tool.resolve(SCRIPT);
            }
        }
        throw new IllegalStateException("no " + TOOL.resolve(SCRIPT) + " above " + Path.of("").toAbsolutePath());
    }

    /** Writes one line to the client's stdin (a record value, for a producer). */
    public void writeLine(String line) throws IOException {
        stdin.write(line);
        stdin.newLine();
        stdin.flush();
    }

    /** Closes stdin: a producer finishes its last sends, a consumer leaves its group and exits. */
    public void closeInput() {
        try {
            stdin.close();
        } catch (IOException alreadyGone) {
            // The process has exited; its exit code and log say why.
        }
    }

    /**
     * Waits for the process to exit and for every event it printed to be handed over; true if
     * it did within {@code timeout}.
     */
    public boolean waitFor(Duration timeout) {
        try {
            long deadline = System.nanoTime() + timeout.toNanos();
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                return false;
            }
            reader.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            return !reader.isAlive();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + name, e);
        }
    }

    /** The exit code; -1 while the process runs. */
    public int exitCode() {
        return process.isAlive() ? -1 : process.exitValue();
    }

    /** Where kafkajs's log and the command line are written. */
    public Path log() {
        return log;
    }

    /** Closes stdin and waits for a clean exit; kills the process if it does not come. */
    @Override
    public void close() {
        closeInput();
        if (!waitFor(CLOSE_WAIT)) {
            process.destroyForcibly();
            waitFor(CLOSE_WAIT);
        }
    }

    @Override
    public String toString() {
        return name + "(pid " + process.pid() + (process.isAlive() ? "" : ", exited " + process.exitValue()) + ")";
    }

    private void readEvents(Consumer<JsonNode> listener) {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                listener.accept(JSON.readTree(line));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(name + " printed a line that is not a JSON event (see " + log + ")", e);
        }
    }
}
