package io.leasehold.testing;

import com.fasterxml.jackson.databind.JsonNode;
import io.leasehold.audit.ProduceJournal;
import io.leasehold.audit.RecordIdentity;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Writes audited records into one partition with the kafkajs client (idempotence off, acks=all)
 * and journals each record's own outcome: acked with its offset, failed with kafkajs's error,
 * or unconfirmed when the run ended (time bound) before kafkajs said either.
 *
 * @param interval pause between records, so that a run spans the faults a test injects
 */
public record KafkajsProducer(String bootstrap, String producerId, String topic, int partition, int records,
                              int valueSize, Duration interval, Duration timeout) {

    /** Checks the producer id and the counts. */
    public KafkajsProducer {
        new RecordIdentity(producerId, 0);
        if (partition < 0 || records <= 0) {
            throw new IllegalArgumentException("kafkajs producer needs a partition >= 0 and records > 0, got partition "
                    + partition + ", records " + records);
        }
    }

    /** What one run did, record by record counted. */
    public record Result(int acked, int failed, int unconfirmed, int exitCode, List<String> errors) {
    }

    /** Runs the producer to completion (bounded by the timeout) with its log in {@code logDir}. */
    public Result run(ProduceJournal journal, Path logDir) {
        ConcurrentHashMap<Integer, Boolean> outcomes = new ConcurrentHashMap<>();
        List<String> errors = new CopyOnWriteArrayList<>();
        List<String> arguments = List.of("produce", "--brokers", bootstrap, "--topic", topic,
                "--partition", Integer.toString(partition), "--client-id", producerId, "--acks", "-1");
        try (KafkajsProcess client = KafkajsProcess.start("kafkajs-" + producerId, arguments, logDir,
                event -> record(event, journal, outcomes, errors))) {
            try {
                for (int seq = 0; seq < records; seq++) {
                    RecordIdentity id = new RecordIdentity(producerId, seq);
                    journal.sent(id, topic, partition);
                    client.writeLine(new String(id.encodeValue(valueSize), StandardCharsets.UTF_8));
                    pause();
                }
            } catch (IOException stdinClosed) {
                errors.add("kafkajs stopped reading records early (see " + client.log() + ")");
            }
            client.closeInput();
            boolean exited = client.waitFor(timeout);
            int unconfirmed = 0;
            for (int seq = 0; seq < records; seq++) {
                if (!outcomes.containsKey(seq)) {
                    journal.unconfirmed(new RecordIdentity(producerId, seq), topic, partition);
                    unconfirmed++;
                }
            }
            int acked = (int) outcomes.values().stream().filter(Boolean::booleanValue).count();
            return new Result(acked, outcomes.size() - acked, unconfirmed, exited ? client.exitCode() : -1, List.copyOf(errors));
        }
    }

    private void record(JsonNode event, ProduceJournal journal, ConcurrentHashMap<Integer, Boolean> outcomes, List<String> errors) {
        String kind = event.path("event").asText();
        int seq = event.path("line").asInt(-1);
        switch (kind) {
            case "acked" -> {
                journal.acked(new RecordIdentity(producerId, seq), topic, partition, Long.parseLong(event.path("offset").asText()));
                outcomes.put(seq, true);
            }
            case "failed" -> {
                String error = event.path("error").asText();
                journal.failed(new RecordIdentity(producerId, seq), topic, partition, error);
                outcomes.put(seq, false);
                errors.add("record " + seq + ": " + error);
            }
            case "error" -> errors.add(event.path("error").asText());
            default -> {
                // "done" and any event a newer client adds carry nothing to journal.
            }
        }
    }

    private void pause() {
        if (interval.isZero()) {
            return;
        }
        try {
            Thread.sleep(interval.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while producing with kafkajs", e);
        }
    }
}
