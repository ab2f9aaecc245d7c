package io.leasehold.proxy.faults;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Members of one Java consumer group, each polling on its own thread, reading a topic from the
 * beginning into one {@link ReadLog}. Whatever {@code poll()} throws is kept as an error and
 * ends that member, as it would end an application.
 */
final class JavaGroupReader implements AutoCloseable {
    private final ReadLog log = new ReadLog("Java consumer group");
    private final List<KafkaConsumer<byte[], byte[]>> members = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final List<String> errors = new CopyOnWriteArrayList<>();
    private volatile boolean stopping;

    JavaGroupReader(String bootstrap, String topic, String group, int memberCount, int fetchMaxWaitMs) {
        this(bootstrap, topic, group, memberCount, fetchMaxWaitMs, Map.of());
    }

    /** Like {@link #JavaGroupReader(String, String, String, int, int)}, with further consumer {@code settings}. */
    JavaGroupReader(String bootstrap, String topic, String group, int memberCount, int fetchMaxWaitMs,
                    Map<String, Object> settings) {
        for (int i = 0; i < memberCount; i++) {
            Properties properties = new Properties();
            properties.putAll(settings);
            properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            properties.put(ConsumerConfig.GROUP_ID_CONFIG, group);
            properties.put(ConsumerConfig.CLIENT_ID_CONFIG, group + "-" + i);
            properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            properties.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, fetchMaxWaitMs);
            properties.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
            properties.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
            KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(properties);
            consumer.subscribe(List.of(topic));
            members.add(consumer);
            Thread thread = new Thread(() -> poll(consumer), group + "-" + i);
            thread.setDaemon(true);
            threads.add(thread);
        }
        threads.forEach(Thread::start);
    }

    private void poll(KafkaConsumer<byte[], byte[]> consumer) {
        try {
            while (!stopping) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100))) {
                    log.read(new String(record.value(), StandardCharsets.UTF_8), record.partition(),
                            System.currentTimeMillis());
                }
            }
        } catch (WakeupException stopped) {
            // close() woke the member up.
        } catch (RuntimeException e) {
            errors.add(Thread.currentThread().getName() + ": " + e);
        } finally {
            consumer.close(Duration.ofSeconds(5));
        }
    }

    ReadLog log() {
        return log;
    }

    List<String> errors() {
        return List.copyOf(errors);
    }

    @Override
    public void close() throws InterruptedException {
        stopping = true;
        members.forEach(KafkaConsumer::wakeup);
        for (Thread thread : threads) {
            thread.join(15_000);
        }
    }
}
