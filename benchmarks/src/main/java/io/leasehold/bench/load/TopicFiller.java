package io.leasehold.bench.load;

import java.util.Properties;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Writes a fixed number of records into a topic, for the consumer benchmark to read back. */
public final class TopicFiller {

    /** Sends {@code records} records of {@code recordBytes} each and waits for every acknowledgement. */
    public void fill(String bootstrap, String topic, long records, int recordBytes) {
        byte[] value = new byte[recordBytes];
        new Random(42).nextBytes(value);
        ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic, value);
        AtomicReference<Exception> firstFailure = new AtomicReference<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(properties(bootstrap))) {
            for (long i = 0; i < records && firstFailure.get() == null; i++) {
                producer.send(record, (metadata, exception) -> {
                    if (exception != null) {
                        firstFailure.compareAndSet(null, exception);
                    }
                });
            }
            producer.flush();
        }
        if (firstFailure.get() != null) {
            throw new IllegalStateException("filling " + topic + " at " + bootstrap + " failed", firstFailure.get());
        }
    }

    private static Properties properties(String bootstrap) {
        Properties properties = new Properties();
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        properties.put(ProducerConfig.ACKS_CONFIG, "1");
        properties.put(ProducerConfig.LINGER_MS_CONFIG, "10");
        properties.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
        properties.put(ProducerConfig.CLIENT_ID_CONFIG, "bench-filler");
        properties.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "60000");
        properties.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        properties.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return properties;
    }
}
