package io.leasehold.proxy.testing;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Real clients with string records for end-to-end tests of the listener's security settings:
 * kafka-clients producer, consumer and admin with the connection settings a test gives, and kcat.
 */
public final class StringClients {

    /** What one kcat run did. */
    public record KcatRun(int exitCode, List<String> lines, String stderr) {
    }

    /** What a paced producer sent, and how often it re-authenticated on its open connections (KIP-368). */
    public record PacedRun(List<String> sent, double reauthentications, double failedReauthentications) {
    }

    private StringClients() {
    }

    /**
     * One producer with {@code acks=all} sends a record every 250 ms for {@code duration} (200 at
     * most), each acknowledged before the next, so its connections live through any session ends.
     */
    public static PacedRun producePaced(Map<String, Object> connection, String topic, Duration duration)
            throws Exception {
        Map<String, Object> settings = new HashMap<>(connection);
        settings.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        settings.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        settings.put(ProducerConfig.ACKS_CONFIG, "all");
        List<String> sent = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(settings)) {
            long end = System.nanoTime() + duration.toNanos();
            for (int i = 0; i < 200 && System.nanoTime() < end; i++) {
                producer.send(new ProducerRecord<>(topic, "k" + i, "v" + i)).get(30, TimeUnit.SECONDS);
                sent.add("v" + i);
                Thread.sleep(250);
            }
            return new PacedRun(sent, producerMetric(producer, "successful-reauthentication-total"),
                    producerMetric(producer, "failed-reauthentication-total"));
        }
    }

    private static double producerMetric(KafkaProducer<String, String> producer, String name) {
        return producer.metrics().entrySet().stream()
                .filter(e -> e.getKey().name().equals(name) && e.getKey().group().equals("producer-metrics"))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue()).sum();
    }

    public static void createTopic(Map<String, Object> connection, String topic, int partitions) throws Exception {
        try (Admin admin = Admin.create(connection)) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
    }

    /** Sends {@code prefix0 .. prefix(count-1)} and waits for every ack; returns the values sent. */
    public static List<String> produce(Map<String, Object> connection, String topic, String prefix, int count)
            throws Exception {
        Map<String, Object> settings = new HashMap<>(connection);
        settings.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        settings.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        settings.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        List<String> sent = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(settings)) {
            List<Future<RecordMetadata>> acks = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                sent.add(prefix + i);
                acks.add(producer.send(new ProducerRecord<>(topic, "k" + i, prefix + i)));
            }
            for (Future<RecordMetadata> ack : acks) {
                ack.get(30, TimeUnit.SECONDS);
            }
        }
        return sent;
    }

    /** Reads {@code topic} from the beginning as a member of {@code group} until {@code expected} values or 60 s. */
    public static List<String> consume(Map<String, Object> connection, String topic, String group, int expected) {
        Map<String, Object> settings = new HashMap<>(connection);
        settings.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        settings.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        settings.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        settings.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(settings)) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (values.size() < expected && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> values.add(r.value()));
            }
            consumer.commitSync(Duration.ofSeconds(30));
        }
        return values;
    }

    /** Runs {@code command} (kcat and its arguments) with {@code input} on stdin, its stderr kept in {@code dir}. */
    public static KcatRun kcat(List<String> command, String input, Path dir) throws Exception {
        Path errors = Files.createTempFile(dir, "kcat", ".err");
        Process kcat = new ProcessBuilder(command).redirectError(errors.toFile()).start();
        kcat.getOutputStream().write(input.getBytes(StandardCharsets.UTF_8));
        kcat.getOutputStream().close();
        String output = new String(kcat.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!kcat.waitFor(60, TimeUnit.SECONDS)) {
            kcat.destroyForcibly();
            throw new AssertionError("kcat " + command + " did not exit; stderr: " + Files.readString(errors));
        }
        return new KcatRun(kcat.exitValue(), output.isEmpty() ? List.of() : List.of(output.split("\n")),
                Files.readString(errors));
    }
}
