package io.leasehold.proxy.faults;

import com.fasterxml.jackson.databind.JsonNode;
import io.leasehold.testing.KafkajsProcess;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A kafkajs producer (idempotence off, acks=all, kafkajs's default partitioner, so records
 * spread over every partition) fed one record value every {@code intervalMillis}, but never more
 * than {@value #MAX_OUTSTANDING} ahead of kafkajs's answers (on two loaded cores kafkajs can fall
 * minutes behind its stdin); keeps which values kafkajs acknowledged and which it failed.
 */
final class KafkajsWriter {
    private static final int MAX_OUTSTANDING = 20;

    private final KafkajsProcess client;
    private final Map<Integer, String> sent = new ConcurrentHashMap<>();
    private final Set<String> acked = ConcurrentHashMap.newKeySet();
    private final List<String> failures = new CopyOnWriteArrayList<>();
    private final AtomicInteger answered = new AtomicInteger();
    private final Thread feeder;
    private volatile boolean stopping;

    KafkajsWriter(String bootstrap, String topic, long intervalMillis, Path logDir) {
        this(bootstrap, topic, intervalMillis, logDir, List.of(), Map.of());
    }

    /**
     * Like {@link #KafkajsWriter(String, String, long, Path)}, with further client {@code options}
     * (e.g. {@code --sasl-mechanism oauthbearer}) and their {@code environment} (the token).
     */
    KafkajsWriter(String bootstrap, String topic, long intervalMillis, Path logDir, List<String> options,
                  Map<String, String> environment) {
        List<String> arguments = new ArrayList<>(List.of("produce", "--brokers", bootstrap, "--topic", topic,
                "--client-id", "kafkajs-writer", "--acks", "-1"));
        arguments.addAll(options);
        client = KafkajsProcess.start("kafkajs-producer-" + topic, arguments, environment, logDir, this::event);
        feeder = new Thread(() -> feed(intervalMillis), "kafkajs-writer");
        feeder.setDaemon(true);
        feeder.start();
    }

    private void feed(long intervalMillis) {
        try {
            for (int line = 0; !stopping; line++) {
                while (line - answered.get() >= MAX_OUTSTANDING && !stopping) {
                    Thread.sleep(intervalMillis);
                }
                String value = ReadLog.value("kafkajs", line);
                sent.put(line, value);
                client.writeLine(value);
                Thread.sleep(intervalMillis);
            }
        } catch (IOException | InterruptedException e) {
            // kafkajs exited early (its exit code and log say why) or the test is ending.
        }
    }

    private void event(JsonNode event) {
        int line = event.path("line").asInt(-1);
        switch (event.path("event").asText()) {
            case "acked" -> {
                acked.add(sent.get(line));
                answered.incrementAndGet();
            }
            case "failed" -> {
                failures.add(sent.get(line) + ": " + event.path("error").asText());
                answered.incrementAndGet();
            }
            case "error" -> failures.add(event.path("error").asText());
            default -> {
                // "done" carries nothing to keep.
            }
        }
    }

    /** Stops feeding and waits (bounded) for kafkajs to finish its sends and exit; true if it did. */
    boolean finish() throws InterruptedException {
        stopping = true;
        feeder.join(5_000);
        client.closeInput();
        return client.waitFor(Duration.ofSeconds(90));
    }

    Set<String> acked() {
        return Set.copyOf(acked);
    }

    /** Records written to kafkajs whose outcome it has not reported. */
    int unanswered() {
        return sent.size() - answered.get();
    }

    List<String> failures() {
        return List.copyOf(failures);
    }

    int exitCode() {
        return client.exitCode();
    }

    Path log() {
        return client.log();
    }

    void kill() {
        client.close();
    }
}
