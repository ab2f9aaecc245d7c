package io.leasehold.proxy.testing;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.leasehold.testing.KafkajsProcess;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

/** Runs the kafkajs test client to an end and hands back every JSON event it printed. */
public final class KafkajsRun {
    private static final Duration LIMIT = Duration.ofSeconds(60);

    private KafkajsRun() {
    }

    /**
     * Starts the client, writes {@code input} to it line by line, then either closes its input and
     * waits for it to exit ({@code until} null: a producer sends everything and exits) or waits
     * until its events satisfy {@code until} (a consumer). The client is stopped either way.
     */
    public static List<JsonNode> events(String name, List<String> arguments, Map<String, String> environment,
                                        Path logDir, String input, Predicate<List<JsonNode>> until) throws IOException {
        List<JsonNode> events = new CopyOnWriteArrayList<>();
        try (KafkajsProcess client = KafkajsProcess.start(name, arguments, environment, logDir, events::add)) {
            for (String line : input.lines().toList()) {
                client.writeLine(line);
            }
            if (until == null) {
                client.closeInput();
                client.waitFor(LIMIT);
            } else {
                await().atMost(LIMIT).until(() -> until.test(events));
            }
        }
        return events;
    }

    /** How many of {@code events} are of type {@code event}. */
    public static long count(List<JsonNode> events, String event) {
        return events.stream().filter(e -> e.path("event").asText().equals(event)).count();
    }

    /** Satisfied once {@code records} records have arrived; null (wait for exit) for 0. */
    public static Predicate<List<JsonNode>> untilRecords(int records) {
        return records == 0 ? null : events -> count(events, "record") >= records;
    }
}
