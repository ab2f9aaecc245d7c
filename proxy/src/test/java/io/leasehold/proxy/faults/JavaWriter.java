package io.leasehold.proxy.faults;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A Java producer with default timeouts (not idempotent unless its settings say so) writing one
 * record every {@code intervalMillis} round-robin over a topic's partitions, on its own thread;
 * keeps which values were acknowledged and which sends failed.
 */
public final class JavaWriter implements AutoCloseable {
    private final KafkaProducer<byte[], byte[]> producer;
    private final Set<String> acked = ConcurrentHashMap.newKeySet();
    private final List<String> failures = new CopyOnWriteArrayList<>();
    private final AtomicLong sent = new AtomicLong();
    private final Thread thread;
    private volatile boolean stopping;

    public JavaWriter(String bootstrap, String topic, int partitions, long intervalMillis) {
        this(bootstrap, topic, partitions, intervalMillis, Map.of());
    }

    /** Like {@link #JavaWriter(String, String, int, long)}, with further producer {@code settings} (e.g. SASL). */
    public JavaWriter(String bootstrap, String topic, int partitions, long intervalMillis,
                      Map<String, Object> settings) {
        this("java", bootstrap, topic, partitions, intervalMillis, settings);
    }

    /**
     * Like {@link #JavaWriter(String, String, int, long, Map)}, writing values named {@code name}
     * (several writers on one topic); {@code settings} override the defaults (e.g. idempotence).
     */
    public JavaWriter(String name, String bootstrap, String topic, int partitions, long intervalMillis,
                      Map<String, Object> settings) {
        Properties properties = new Properties();
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        properties.put(ProducerConfig.CLIENT_ID_CONFIG, name + "-writer");
        properties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        properties.put(ProducerConfig.ACKS_CONFIG, "all");
        properties.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        properties.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        properties.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        properties.putAll(settings);
        producer = new KafkaProducer<>(properties);
        thread = new Thread(() -> write(name, topic, partitions, intervalMillis), name + "-writer");
        thread.setDaemon(true);
        thread.start();
    }

    private void write(String name, String topic, int partitions, long intervalMillis) {
        long seq = 0;
        while (!stopping) {
            String value = ReadLog.value(name, seq);
            int partition = (int) (seq % partitions);
            seq++;
            sent.incrementAndGet();
            producer.send(new ProducerRecord<>(topic, partition, null, value.getBytes(StandardCharsets.UTF_8)),
                    (metadata, error) -> {
                        if (error == null) {
                            acked.add(value);
                        } else {
                            failures.add(value + ": " + error);
                        }
                    });
            try {
                Thread.sleep(intervalMillis);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    public long sent() {
        return sent.get();
    }

    public Set<String> acked() {
        return Set.copyOf(acked);
    }

    public List<String> failures() {
        return List.copyOf(failures);
    }

    /** Stops sending and waits (bounded) for every send's outcome. */
    @Override
    public void close() throws InterruptedException {
        stopping = true;
        thread.join(5_000);
        producer.close(Duration.ofSeconds(60));
    }
}
