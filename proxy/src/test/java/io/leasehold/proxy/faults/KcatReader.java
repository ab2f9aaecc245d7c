package io.leasehold.proxy.faults;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code kcat -C} (librdkafka) reading every partition of a topic from the beginning, one line
 * "partition|value" per record, into a {@link ReadLog}; its stderr goes to a log file.
 */
final class KcatReader implements AutoCloseable {
    private final ReadLog log = new ReadLog("kcat consumer");
    private final Process process;
    private final Thread reader;
    private final Path stderr;

    KcatReader(String bootstrap, String topic, int fetchMaxWaitMs, Path logDir) throws IOException {
        this(bootstrap, topic, fetchMaxWaitMs, logDir, "consumer-" + fetchMaxWaitMs, List.of());
    }

    /**
     * Like {@link #KcatReader(String, String, int, Path)}, with further librdkafka {@code settings}
     * ("name=value"); its stderr goes to {@code kcat-{label}.log}.
     */
    KcatReader(String bootstrap, String topic, int fetchMaxWaitMs, Path logDir, String label, List<String> settings)
            throws IOException {
        Files.createDirectories(logDir);
        stderr = logDir.resolve("kcat-" + label + ".log");
        // -m: kcat gives up for good if its first metadata query takes longer (5 s by default).
        List<String> command = new ArrayList<>(List.of("kcat", "-C", "-b", bootstrap, "-t", topic, "-o", "beginning",
                "-u", "-m", "30", "-f", "%p|%s\\n", "-X", "fetch.wait.max.ms=" + fetchMaxWaitMs));
        settings.forEach(setting -> command.addAll(List.of("-X", setting)));
        process = new ProcessBuilder(command).redirectError(stderr.toFile()).start();
        process.getOutputStream().close();
        reader = new Thread(this::readLines, "kcat-consumer");
        reader.setDaemon(true);
        reader.start();
    }

    private void readLines() {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                int bar = line.indexOf('|');
                if (bar > 0) {
                    log.read(line.substring(bar + 1), Integer.parseInt(line.substring(0, bar)), System.currentTimeMillis());
                }
            }
        } catch (IOException | NumberFormatException e) {
            // The process was stopped, or printed something else; what was read stays in the log.
        }
    }

    ReadLog log() {
        return log;
    }

    /** True while kcat runs (it exits on a fatal error). */
    boolean isAlive() {
        return process.isAlive();
    }

    Path stderr() {
        return stderr;
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
        reader.join(5_000);
    }
}
