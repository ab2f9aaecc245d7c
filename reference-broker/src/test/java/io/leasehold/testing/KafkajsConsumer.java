package io.leasehold.testing;

import com.fasterxml.jackson.databind.JsonNode;
import io.leasehold.audit.RecordIdentity;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * A kafkajs consumer-group member running in the background: every record it receives is kept
 * with the time it arrived, every error kafkajs reports is kept, and {@link #close()} makes it
 * leave its group and exit.
 */
public final class KafkajsConsumer implements AutoCloseable {

    private static final Duration POLL = Duration.ofMillis(50);

    /** One received record; {@code receivedAtMillis} is the consumer's wall clock. */
    public record Received(int partition, long offset, String value, long receivedAtMillis) {

        /** The audited identity in the value, if it is an audited record. */
        public Optional<RecordIdentity> identity() {
            return value == null ? Optional.empty() : RecordIdentity.parseValue(value.getBytes(StandardCharsets.UTF_8));
        }
    }

    private final List<Received> received = new CopyOnWriteArrayList<>();
    private final List<String> errors = new CopyOnWriteArrayList<>();
    private final AtomicInteger joins = new AtomicInteger();
    private final KafkajsProcess client;

    private KafkajsConsumer(String name, List<String> arguments, Map<String, String> environment, Path logDir) {
        this.client = KafkajsProcess.start(name, arguments, environment, logDir, this::onEvent);
    }

    /**
     * Starts a member of {@code group} reading {@code topic} from the beginning through
     * {@code bootstrap}, with fetches that wait at most {@code maxWait} on the broker.
     */
    public static KafkajsConsumer start(String name, String bootstrap, String topic, String group, Duration maxWait, Path logDir) {
        return start(name, bootstrap, topic, group, maxWait, logDir, List.of(), Map.of());
    }

    /**
     * Like {@link #start(String, String, String, String, Duration, Path)}, with further client
     * {@code options} (e.g. {@code --sasl-mechanism oauthbearer}) and their {@code environment}.
     */
    public static KafkajsConsumer start(String name, String bootstrap, String topic, String group, Duration maxWait,
                                        Path logDir, List<String> options, Map<String, String> environment) {
        List<String> arguments = new ArrayList<>(List.of("consume", "--brokers", bootstrap, "--topic", topic, "--group",
                group, "--client-id", name, "--max-wait-ms", Long.toString(maxWait.toMillis())));
        arguments.addAll(options);
        return new KafkajsConsumer(name, arguments, environment, logDir);
    }

    /** Every record received so far, in arrival order. */
    public List<Received> received() {
        return List.copyOf(received);
    }

    /** Every error kafkajs reported so far (a crash, a failed fetch it gave up on). */
    public List<String> errors() {
        return List.copyOf(errors);
    }

    /** How many times the member (re)joined its group. */
    public int joins() {
        return joins.get();
    }

    /** Waits until the member joined its group at least once; false on timeout. */
    public boolean awaitJoined(Duration timeout) {
        return await(() -> joins.get() > 0, timeout);
    }

    /** Waits until at least {@code count} records arrived; false on timeout. */
    public boolean awaitReceived(int count, Duration timeout) {
        return await(() -> received.size() >= count, timeout);
    }

    /** Where kafkajs's log is. */
    public Path log() {
        return client.log();
    }

    /** Leaves the group and waits for the client to exit (killed if it does not). */
    @Override
    public void close() {
        client.close();
    }

    private void onEvent(JsonNode event) {
        switch (event.path("event").asText()) {
            case "record" -> received.add(new Received(event.path("partition").asInt(),
                    Long.parseLong(event.path("offset").asText()),
                    event.path("value").isNull() ? null : event.path("value").asText(),
                    event.path("receivedAt").asLong()));
            case "joined" -> joins.incrementAndGet();
            case "error" -> errors.add(event.path("error").asText());
            default -> {
                // "done" and any event a newer client adds carry nothing to keep.
            }
        }
    }

    private boolean await(BooleanSupplier condition, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline || client.exitCode() >= 0) {
                return condition.getAsBoolean();
            }
            try {
                Thread.sleep(POLL.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }
}
