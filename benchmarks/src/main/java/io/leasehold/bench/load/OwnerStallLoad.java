package io.leasehold.bench.load;

import io.leasehold.bench.report.Failures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Measures how the partitions of the other owners fare while one owner is frozen: producers send
 * at a fixed total rate to every partition in turn (explicit partitions, so the partitioner does
 * not steer around the stalled one), one consumer reads every partition from the end, and each
 * acknowledgement and received record is counted per partition in 100 ms buckets. The owner is
 * stopped after the warm-up and the before-window, and resumed after the stall, always (also when
 * the run fails).
 *
 * <p>Each producer's buffer (32 MiB) holds the stalled partitions' share of a 15 s stall at the
 * rates the plans use, so a producer never blocks on a full buffer and the figure shows what the
 * path does, not what the client's buffer does.
 */
public final class OwnerStallLoad {

    private static final int BUFFER_BYTES = 32 << 20;
    private static final Duration TAIL = Duration.ofSeconds(2);

    private final StallPlan plan;

    public OwnerStallLoad(StallPlan plan) {
        this.plan = plan;
    }

    /** The owner to freeze, as the load sees it. */
    public interface Owner {
        void pause();

        void resume();
    }

    public StallResult run(String bootstrap, String topic, int partitions, Set<Integer> ownerPartitions, Owner owner) {
        long span = plan.warmup().plus(plan.before()).plus(plan.stall()).plus(TAIL).plusSeconds(30).toNanos();
        ConsumerThread consumer = new ConsumerThread(bootstrap, topic, partitions, span);
        consumer.start();
        long start = System.nanoTime();
        long pausedAt;
        long resumedAt;
        List<ProducerThread> producers = new ArrayList<>();
        try {
            consumer.awaitPositioned();
            start = System.nanoTime();
            consumer.startCounting(start);
            for (int i = 0; i < plan.producers(); i++) {
                ProducerThread producer = new ProducerThread(bootstrap, topic, partitions, i, start, span);
                producers.add(producer);
                producer.start();
            }
            sleepUntil(start + plan.warmup().plus(plan.before()).toNanos());
            pausedAt = System.nanoTime();
            owner.pause();
            try {
                sleepUntil(pausedAt + plan.stall().toNanos());
            } finally {
                owner.resume();
                resumedAt = System.nanoTime();
            }
            sleepUntil(resumedAt + TAIL.toNanos());
        } finally {
            producers.forEach(ProducerThread::finish);
            consumer.finish();
        }
        PartitionTimeline acked = new PartitionTimeline(start, partitions, span);
        long errors = 0;
        String firstError = null;
        for (ProducerThread producer : producers) {
            if (producer.failure != null) {
                throw new IllegalStateException("producer " + producer.getName() + " failed", producer.failure);
            }
            acked.add(producer.timeline);
            errors += producer.errors;
            firstError = firstError == null ? producer.firstError : firstError;
        }
        if (consumer.failure != null) {
            throw new IllegalStateException("stall consumer failed", consumer.failure);
        }
        Set<Integer> others = IntStream.range(0, partitions).boxed().filter(p -> !ownerPartitions.contains(p))
                .collect(Collectors.toSet());
        long beforeFrom = start + plan.warmup().toNanos();
        return new StallResult(acked.rate(others, beforeFrom, pausedAt), acked.rate(others, pausedAt, resumedAt),
                consumer.timeline.rate(others, beforeFrom, pausedAt), consumer.timeline.rate(others, pausedAt, resumedAt),
                acked.rate(ownerPartitions, pausedAt, resumedAt), errors, firstError);
    }

    /** Waits a bounded time for a load thread that was told to stop. */
    private static void awaitEnd(Thread thread) {
        try {
            thread.join(TimeUnit.SECONDS.toMillis(60));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void sleepUntil(long nanos) {
        long now;
        while ((now = System.nanoTime()) < nanos) {
            LockSupport.parkNanos(nanos - now);
            if (Thread.interrupted()) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted during the owner-stall run");
            }
        }
    }

    private final class ProducerThread extends Thread {
        private final KafkaProducer<byte[], byte[]> producer;
        private final String topic;
        private final int partitions;
        private final long start;
        private final int index;
        /** Written by the producer's I/O thread (callbacks) only; read after close(). */
        private final PartitionTimeline timeline;
        private volatile boolean stopped;
        private volatile Throwable failure;
        private long errors;
        private String firstError;

        ProducerThread(String bootstrap, String topic, int partitions, int index, long start, long span) {
            super("stall-producer-" + index);
            this.producer = new KafkaProducer<>(producerProperties(bootstrap, index));
            this.topic = topic;
            this.partitions = partitions;
            this.start = start;
            this.index = index;
            this.timeline = new PartitionTimeline(start, partitions, span);
        }

        @Override
        public void run() {
            try {
                byte[] value = new byte[plan.recordBytes()];
                new Random(getName().hashCode()).nextBytes(value);
                long interval = (long) (1e9 * plan.producers() / plan.recordsPerSecond());
                long next = start;
                int partition = index % partitions;
                while (!stopped) {
                    long now = System.nanoTime();
                    if (next > now) {
                        LockSupport.parkNanos(next - now);
                        continue;
                    }
                    next += interval;
                    int target = partition;
                    partition = (partition + 1) % partitions;
                    producer.send(new ProducerRecord<>(topic, target, null, value), (metadata, exception) -> {
                        if (exception != null) {
                            if (errors++ == 0) {
                                firstError = Failures.describe(exception);
                            }
                        } else {
                            timeline.record(target, System.nanoTime());
                        }
                    });
                }
            } catch (RuntimeException e) {
                failure = e;
            }
        }

        void finish() {
            stopped = true;
            awaitEnd(this);
            producer.close(Duration.ofSeconds(30));
        }
    }

    private static Properties producerProperties(String bootstrap, int index) {
        Properties properties = new Properties();
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        properties.put(ProducerConfig.ACKS_CONFIG, "1");
        properties.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        properties.put(ProducerConfig.CLIENT_ID_CONFIG, "bench-stall-producer-" + index);
        properties.put(ProducerConfig.BUFFER_MEMORY_CONFIG, Integer.toString(BUFFER_BYTES));
        // Longer than the stall: a request to the stopped owner waits for it instead of failing.
        properties.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "40000");
        properties.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
        properties.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "60000");
        properties.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        properties.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return properties;
    }

    private static final class ConsumerThread extends Thread {
        private final String bootstrap;
        private final String topic;
        private final int partitions;
        private final long span;
        private final CountDownLatch positioned = new CountDownLatch(1);
        private volatile long countFrom;
        private volatile boolean stopped;
        private volatile Throwable failure;
        /** Written by this thread only; read after join(). */
        private volatile PartitionTimeline timeline;

        ConsumerThread(String bootstrap, String topic, int partitions, long span) {
            super("stall-consumer");
            this.bootstrap = bootstrap;
            this.topic = topic;
            this.partitions = partitions;
            this.span = span;
        }

        @Override
        public void run() {
            try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProperties(bootstrap))) {
                List<TopicPartition> assigned = IntStream.range(0, partitions)
                        .mapToObj(p -> new TopicPartition(topic, p)).toList();
                consumer.assign(assigned);
                consumer.seekToEnd(assigned);
                assigned.forEach(consumer::position);
                positioned.countDown();
                while (countFrom == 0) {
                    Thread.onSpinWait();
                }
                PartitionTimeline counted = new PartitionTimeline(countFrom, partitions, span);
                while (!stopped) {
                    long now = System.nanoTime();
                    for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100))) {
                        counted.record(record.partition(), now);
                    }
                }
                timeline = counted;
            } catch (RuntimeException e) {
                failure = e;
            } finally {
                positioned.countDown();
            }
        }

        void awaitPositioned() {
            try {
                if (!positioned.await(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("stall consumer at " + bootstrap + " not positioned within 60 s");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while starting the stall consumer", e);
            }
            if (failure != null) {
                throw new IllegalStateException("stall consumer at " + bootstrap + " failed", failure);
            }
        }

        void startCounting(long startNanos) {
            countFrom = startNanos;
        }

        void finish() {
            stopped = true;
            awaitEnd(this);
        }
    }

    private static Properties consumerProperties(String bootstrap) {
        Properties properties = new Properties();
        properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        properties.put(ConsumerConfig.CLIENT_ID_CONFIG, "bench-stall-consumer");
        properties.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "100");
        properties.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, "40000");
        properties.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        properties.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return properties;
    }
}
