package io.leasehold.bench.load;

import io.leasehold.bench.report.Failures;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Runs a {@link ProducerWorkload} with the stock Kafka Java producer: one producer instance and
 * one sending thread per configured producer, against one bootstrap address.
 *
 * <p>Latency is measured from the moment a record was meant to be sent to its acknowledgement.
 * For a rate-limited run that is the scheduled send time, so a stall that delays later sends
 * shows up in their latency instead of being hidden (no coordinated omission). Throughput counts
 * the acknowledgements that arrive inside the measurement window.
 */
public final class ProducerLoad {

    private static final long MAX_LATENCY_MICROS = 120_000_000L;
    private final Timing timing;
    private final int bufferBytes;
    private final Map<String, Object> clientSettings;

    /**
     * @param bufferBytes each producer's {@code buffer.memory}. At full speed a producer's queue is
     *                    always full, so its latency is buffer / throughput (Little's law): a
     *                    buffer well below the default 32 MiB keeps that in the range where a
     *                    proxy's own delay is still visible next to it.
     */
    public ProducerLoad(Timing timing, int bufferBytes) {
        this(timing, bufferBytes, Map.of());
    }

    /**
     * @param clientSettings further producer settings, e.g. {@code security.protocol} and its
     *                       TLS or SASL settings; they win over the ones this class sets
     */
    public ProducerLoad(Timing timing, int bufferBytes, Map<String, Object> clientSettings) {
        this.timing = timing;
        this.bufferBytes = bufferBytes;
        this.clientSettings = Map.copyOf(clientSettings);
    }

    public LoadResult run(String bootstrap, String topic, ProducerWorkload workload) {
        List<KafkaProducer<byte[], byte[]>> producers = new ArrayList<>();
        try {
            for (int i = 0; i < workload.producers(); i++) {
                KafkaProducer<byte[], byte[]> producer =
                        new KafkaProducer<>(properties(bootstrap, workload, i));
                producers.add(producer);
                // Metadata before the clock starts: a schedule must not begin with a metadata round trip's backlog.
                producer.partitionsFor(topic);
            }
            return measure(producers, topic, workload);
        } finally {
            producers.forEach(KafkaProducer::close);
        }
    }

    private LoadResult measure(List<KafkaProducer<byte[], byte[]>> producers, String topic, ProducerWorkload workload) {
        long start = System.nanoTime();
        Window window = new Window(start + timing.warmup().toNanos(),
                start + timing.warmup().toNanos() + timing.measure().toNanos());
        List<ProducerThread> threads = new ArrayList<>();
        for (int i = 0; i < producers.size(); i++) {
            ProducerThread thread = new ProducerThread(producers.get(i), topic, workload, window, start, i);
            threads.add(thread);
            thread.start();
        }
        Histogram latency = new Histogram(MAX_LATENCY_MICROS, 3);
        long records = 0;
        long acked = 0;
        long errors = 0;
        String firstError = null;
        for (ProducerThread thread : threads) {
            thread.awaitDone();
            if (thread.failure != null) {
                throw new IllegalStateException("producer " + thread.getName() + " failed", thread.failure);
            }
            latency.add(thread.stats.latency);
            records += thread.stats.ackedInWindow;
            acked += thread.stats.acked;
            errors += thread.stats.errors;
            if (firstError == null) {
                firstError = thread.stats.firstError;
            }
        }
        double seconds = timing.measure().toNanos() / 1e9;
        return new LoadResult(records, records * workload.recordBytes(), seconds, acked * workload.recordBytes(),
                latency, errors, firstError);
    }

    private Properties properties(String bootstrap, ProducerWorkload workload, int index) {
        Properties properties = new Properties();
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        properties.put(ProducerConfig.ACKS_CONFIG, workload.acks());
        properties.put(ProducerConfig.LINGER_MS_CONFIG, Integer.toString(workload.lingerMs()));
        properties.put(ProducerConfig.CLIENT_ID_CONFIG, "bench-producer-" + index);
        properties.put(ProducerConfig.BUFFER_MEMORY_CONFIG, Integer.toString(bufferBytes));
        // Bounded waits, so a backend or proxy that stops answering fails the run instead of hanging it.
        properties.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
        properties.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "20000");
        properties.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000");
        properties.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        properties.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        properties.putAll(clientSettings);
        return properties;
    }

    private record Window(long fromNanos, long toNanos) {
        boolean contains(long nanos) {
            return nanos >= fromNanos && nanos < toNanos;
        }
    }

    /** Touched only by the producer's I/O thread (callbacks), read after the producer is closed. */
    private static final class Stats {
        final Histogram latency = new Histogram(MAX_LATENCY_MICROS, 3);
        long ackedInWindow;
        long acked;
        long errors;
        String firstError;
    }

    private static final class ProducerThread extends Thread {
        private final KafkaProducer<byte[], byte[]> producer;
        private final String topic;
        private final ProducerWorkload workload;
        private final Window window;
        private final long start;
        private final Stats stats = new Stats();
        private volatile Throwable failure;

        ProducerThread(KafkaProducer<byte[], byte[]> producer, String topic, ProducerWorkload workload, Window window,
                long start, int index) {
            super("bench-producer-" + index);
            this.producer = producer;
            this.topic = topic;
            this.workload = workload;
            this.window = window;
            this.start = start;
        }

        @Override
        public void run() {
            try {
                sendUntilWindowEnds();
                producer.flush();
            } catch (RuntimeException e) {
                failure = e;
            }
        }

        void awaitDone() {
            try {
                join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + getName(), e);
            }
        }

        private void sendUntilWindowEnds() {
            byte[] value = new byte[workload.recordBytes()];
            new Random(getName().hashCode()).nextBytes(value);
            ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic, value);
            long interval = workload.rateLimited()
                    ? (long) (1e9 * workload.producers() / workload.recordsPerSecond())
                    : 0;
            long nextSend = start;
            while (true) {
                long now = System.nanoTime();
                if (now >= window.toNanos()) {
                    return;
                }
                long intended = now;
                if (interval > 0) {
                    if (nextSend > now) {
                        LockSupport.parkNanos(nextSend - now);
                        continue;
                    }
                    intended = nextSend;
                    nextSend += interval;
                }
                long sentAt = intended;
                producer.send(record, (metadata, exception) -> completed(sentAt, exception));
            }
        }

        private void completed(long sentAt, Exception exception) {
            long now = System.nanoTime();
            if (exception != null) {
                if (stats.errors++ == 0) {
                    stats.firstError = Failures.describe(exception);
                }
                return;
            }
            stats.acked++;
            if (window.contains(now)) {
                stats.ackedInWindow++;
            }
            if (window.contains(sentAt)) {
                stats.latency.recordValue(Math.min(MAX_LATENCY_MICROS, (now - sentAt) / 1000));
            }
        }
    }
}
