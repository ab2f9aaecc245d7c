package io.leasehold.audit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Runs N real kafka-clients producers that write audited records (see {@link RecordIdentity})
 * and journal every send and its outcome. Bounded by a record count per producer and by wall
 * time; {@link #start()} runs it in the background so a test can inject faults meanwhile.
 */
public final class AuditedWorkload implements AutoCloseable {

    private static final Duration CLOSE_GRACE = Duration.ofSeconds(5);

    private final WorkloadSpec spec;
    private final ProduceJournal journal;
    private final ExecutorService threads;
    private final AtomicBoolean stopRequested = new AtomicBoolean();
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong acked = new AtomicLong();
    private final AtomicLong unconfirmed = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final Set<String> errors = ConcurrentHashMap.newKeySet();
    private final List<Future<?>> producers = new ArrayList<>();
    private long startedNanos;

    /** A workload that records into {@code journal} (shared with other workloads if wanted). */
    public AuditedWorkload(WorkloadSpec spec, ProduceJournal journal) {
        this.spec = spec;
        this.journal = journal;
        this.threads = Executors.newFixedThreadPool(spec.producers(), runnable -> {
            Thread thread = new Thread(runnable, "audited-producer");
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Runs to completion (count or time bound) and returns the counts. */
    public WorkloadResult run() {
        start();
        return awaitCompletion(spec.maxDuration().plus(spec.deliveryTimeout()).plus(CLOSE_GRACE.multipliedBy(2)));
    }

    /** Starts every producer in the background and returns at once. */
    public synchronized AuditedWorkload start() {
        if (startedNanos != 0) {
            throw new IllegalStateException("workload already started");
        }
        startedNanos = System.nanoTime();
        long deadline = startedNanos + spec.maxDuration().toNanos();
        for (int i = 0; i < spec.producers(); i++) {
            int index = i;
            producers.add(threads.submit(() -> produce(index, deadline)));
        }
        return this;
    }

    /** Asks every producer to stop sending; in-flight sends still complete. */
    public void stop() {
        stopRequested.set(true);
    }

    /** Records acknowledged so far by this workload. */
    public long ackedSoFar() {
        return acked.get();
    }

    /**
     * Waits for every producer to finish and close; on timeout stops them and reports what is
     * known (unfinished sends stay pending in the journal).
     */
    public WorkloadResult awaitCompletion(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Future<?> producer : producers) {
            try {
                producer.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                stop();
                errors.add("workload did not finish within " + timeout);
            } catch (ExecutionException e) {
                errors.add("producer thread failed: " + e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                stop();
                errors.add("interrupted while waiting for producers");
                break;
            }
        }
        long total = sent.get();
        long done = acked.get() + unconfirmed.get() + failed.get();
        return new WorkloadResult(total, acked.get(), unconfirmed.get(), failed.get(), total - done,
                Duration.ofNanos(System.nanoTime() - startedNanos), new ArrayList<>(errors));
    }

    @Override
    public void close() {
        stop();
        threads.shutdown();
        try {
            if (!threads.awaitTermination(spec.deliveryTimeout().plus(CLOSE_GRACE).toMillis(), TimeUnit.MILLISECONDS)) {
                threads.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            threads.shutdownNow();
        }
    }

    private void produce(int index, long deadline) {
        String producerId = spec.producerId(index);
        long pacingNanos = spec.recordsPerSecond() == 0 ? 0 : 1_000_000_000L / spec.recordsPerSecond();
        long nextSendNanos = System.nanoTime();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(properties(index))) {
            try {
                for (long seq = 0; seq < spec.recordsPerProducer() && !stopRequested.get()
                        && System.nanoTime() < deadline; seq++) {
                    if (pacingNanos > 0) {
                        nextSendNanos += pacingNanos;
                        sleepUntil(Math.min(nextSendNanos, deadline));
                    }
                    send(producer, new RecordIdentity(producerId, seq), partitionFor(index, seq));
                }
                producer.flush();
            } finally {
                producer.close(CLOSE_GRACE);
            }
        } catch (KafkaException e) {
            errors.add(producerId + ": " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void send(KafkaProducer<byte[], byte[]> producer, RecordIdentity id, Integer partition) {
        String topic = spec.topic();
        int journaledPartition = partition == null ? -1 : partition;
        journal.sent(id, topic, journaledPartition);
        sent.incrementAndGet();
        try {
            producer.send(new ProducerRecord<>(topic, partition, null, id.encodeValue(spec.valueSize())),
                    (metadata, exception) -> complete(id, journaledPartition, metadata, exception));
        } catch (KafkaException e) {
            complete(id, journaledPartition, null, e);
        }
    }

    private void complete(RecordIdentity id, int partition, RecordMetadata metadata, Exception exception) {
        if (exception != null) {
            failed.incrementAndGet();
            errors.add(exception.getClass().getSimpleName() + ": " + exception.getMessage());
            journal.failed(id, spec.topic(), partition, exception.toString());
        } else if (!metadata.hasOffset()) {
            unconfirmed.incrementAndGet();
            journal.unconfirmed(id, spec.topic(), metadata.partition());
        } else {
            acked.incrementAndGet();
            journal.acked(id, spec.topic(), metadata.partition(), metadata.offset());
        }
    }

    private Integer partitionFor(int producerIndex, long seq) {
        List<Integer> partitions = spec.partitions();
        return partitions.isEmpty() ? null : partitions.get((int) ((seq + producerIndex) % partitions.size()));
    }

    private Properties properties(int index) {
        Properties properties = new Properties();
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, spec.bootstrapFor(index));
        properties.put(ProducerConfig.CLIENT_ID_CONFIG, "audited-" + spec.producerId(index));
        properties.put(ProducerConfig.ACKS_CONFIG, spec.acks());
        properties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, spec.idempotence());
        properties.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, spec.maxInFlight());
        properties.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        int deliveryMs = (int) spec.deliveryTimeout().toMillis();
        properties.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, deliveryMs);
        properties.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Math.min(deliveryMs - 5, 10_000));
        properties.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Math.min(deliveryMs, 10_000));
        properties.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 50);
        properties.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        properties.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        properties.putAll(spec.producerOverrides());
        return properties;
    }

    private static void sleepUntil(long nanoTime) throws InterruptedException {
        long wait = nanoTime - System.nanoTime();
        if (wait > 0) {
            TimeUnit.NANOSECONDS.sleep(wait);
        }
    }
}
