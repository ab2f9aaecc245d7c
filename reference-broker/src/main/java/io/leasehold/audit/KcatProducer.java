package io.leasehold.audit;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Writes audited records with {@code kcat -P} (librdkafka), one record per line into one
 * partition, and journals them. kcat reports success only for the whole run: exit 0 marks every
 * record delivered (must be found, offset unknown); anything else marks them failed (unknown).
 *
 * @param kcat      the kcat binary, e.g. {@code kcat} or {@code /usr/bin/kcat}
 * @param extraArgs more kcat flags, e.g. {@code -X linger.ms=5}
 */
public record KcatProducer(String kcat, String bootstrap, String producerId, String topic, int partition,
                           int records, int valueSize, Duration timeout, List<String> extraArgs) {

    /** Copies the flags and checks the producer id. */
    public KcatProducer {
        extraArgs = List.copyOf(extraArgs);
        new RecordIdentity(producerId, 0);
        if (partition < 0 || records <= 0) {
            throw new IllegalArgumentException("kcat producer needs a partition >= 0 and records > 0, got partition "
                    + partition + ", records " + records);
        }
    }

    /** Runs kcat to completion (bounded by the timeout) and returns its exit code; the journal is updated. */
    public int run(ProduceJournal journal, Path logFile) {
        List<String> command = new ArrayList<>(List.of(kcat, "-P", "-b", bootstrap, "-t", topic,
                "-p", Integer.toString(partition), "-X", "acks=all", "-X", "client.id=" + producerId));
        command.addAll(extraArgs);
        try {
            Files.writeString(logFile, "$ " + String.join(" ", command) + System.lineSeparator(), StandardCharsets.UTF_8);
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile())).start();
            try (BufferedWriter stdin = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8))) {
                for (int seq = 0; seq < records; seq++) {
                    RecordIdentity id = new RecordIdentity(producerId, seq);
                    journal.sent(id, topic, partition);
                    stdin.write(new String(id.encodeValue(valueSize), StandardCharsets.UTF_8));
                    stdin.newLine();
                }
            } catch (IOException stdinClosed) {
                // kcat exited early; its exit code and log say why, and every record stays unconfirmed below.
            }
            boolean exited = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (!exited) {
                process.destroyForcibly().waitFor();
            }
            int exitCode = exited ? process.exitValue() : -1;
            for (int seq = 0; seq < records; seq++) {
                RecordIdentity id = new RecordIdentity(producerId, seq);
                if (exitCode == 0) {
                    journal.delivered(id, topic, partition);
                } else {
                    journal.failed(id, topic, partition, exited ? "kcat exited with " + exitCode : "kcat timed out after " + timeout);
                }
            }
            return exitCode;
        } catch (IOException e) {
            throw new UncheckedIOException("could not run " + kcat + " (see " + logFile + ")", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while kcat was producing", e);
        }
    }
}
