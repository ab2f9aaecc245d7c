package io.leasehold.proxy.faults;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * {@code kcat -P -v -v} (librdkafka, default settings; a line per delivered record) fed one
 * record value every {@code intervalMillis} on stdin, spread over the topic's partitions by librdkafka's
 * partitioner. kcat reports a failed delivery on stderr ("Delivery failed") and exits non-zero;
 * with exit code 0 and no such line every record was acknowledged.
 */
public final class KcatWriter {
    private static final String KEY_DELIMITER = "|";

    private final Process process;
    private final Path stderr;
    private final List<String> sent = new CopyOnWriteArrayList<>();
    private final Thread feeder;
    private volatile boolean stopping;
    private int exitCode = -1;

    public KcatWriter(String bootstrap, String topic, long intervalMillis, Path logDir) throws IOException {
        this(bootstrap, topic, intervalMillis, logDir, false);
    }

    /**
     * As above; {@code keyed} gives every record its sequence number as key, so each batch kcat
     * sends is spread over the partitions instead of going to one sticky partition (kcat fed from
     * stdin sends about one batch a second, ~45 records at a 20 ms pace).
     */
    public KcatWriter(String bootstrap, String topic, long intervalMillis, Path logDir, boolean keyed)
            throws IOException {
        Files.createDirectories(logDir);
        stderr = logDir.resolve("kcat-producer-" + topic + ".log");
        List<String> command = new ArrayList<>(List.of("kcat", "-P", "-b", bootstrap, "-t", topic, "-X", "acks=all",
                "-X", "client.id=kcat-writer", "-v", "-v"));
        if (keyed) {
            command.addAll(List.of("-K", KEY_DELIMITER));
        }
        process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(stderr.toFile()).start();
        feeder = new Thread(() -> feed(intervalMillis, keyed), "kcat-writer");
        feeder.setDaemon(true);
        feeder.start();
    }

    private void feed(long intervalMillis, boolean keyed) {
        try (BufferedWriter stdin = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8))) {
            long seq = 0;
            while (!stopping) {
                String value = ReadLog.value("kcat", seq);
                stdin.write(keyed ? seq + KEY_DELIMITER + value : value);
                seq++;
                stdin.newLine();
                stdin.flush();
                sent.add(value);
                Thread.sleep(intervalMillis);
            }
        } catch (IOException | InterruptedException e) {
            // kcat exited early (its exit code and log say why) or the test is ending.
        }
    }

    /** Stops feeding, closes kcat's stdin and waits (bounded) for it to deliver and exit. */
    public void finish() throws InterruptedException {
        stopping = true;
        feeder.join(5_000);
        if (process.waitFor(90, TimeUnit.SECONDS)) {
            exitCode = process.exitValue();
        } else {
            process.destroyForcibly().waitFor();
        }
    }

    public List<String> sent() {
        return List.copyOf(sent);
    }

    public int exitCode() {
        return exitCode;
    }

    /** How many records kcat reported delivered so far (its "-v -v" delivery lines). */
    public long delivered() throws IOException {
        try (var lines = Files.lines(stderr)) {
            return lines.filter(line -> line.contains("Message delivered to partition")).count();
        }
    }

    /** Lines in kcat's output that report a record it gave up on. */
    public List<String> deliveryFailures() throws IOException {
        return Files.readAllLines(stderr).stream().filter(line -> line.contains("Delivery failed")).toList();
    }

    public Path log() {
        return stderr;
    }

    public void kill() throws InterruptedException {
        process.destroyForcibly().waitFor();
    }
}
