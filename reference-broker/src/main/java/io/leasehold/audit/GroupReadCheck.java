package io.leasehold.audit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
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
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads an audited topic with a real consumer group (subscribe, rebalance, commit) until every
 * confirmed record of a journal has been delivered to some member, or a time bound passes.
 * Member {@code i} bootstraps to {@code bootstrapAddresses[i % size]}.
 *
 * @param groupId group name; a fresh one reads from the earliest offset
 */
public record GroupReadCheck(List<String> bootstrapAddresses, String groupId, String topic, int members,
                             Duration timeout) {

    private static final Duration POLL = Duration.ofMillis(200);

    /** Copies the addresses. */
    public GroupReadCheck {
        bootstrapAddresses = List.copyOf(bootstrapAddresses);
        if (bootstrapAddresses.isEmpty() || members <= 0) {
            throw new IllegalArgumentException("a group read needs bootstrap addresses and at least one member");
        }
    }

    /** Runs the members until the confirmed records of {@code journal} for this topic were all seen. */
    public GroupReadResult run(List<JournalEntry> journal) {
        Set<RecordIdentity> expected = ConcurrentHashMap.newKeySet();
        journal.stream().filter(entry -> entry.confirmed() && entry.topic().equals(topic))
                .forEach(entry -> expected.add(entry.identity()));
        Set<RecordIdentity> seen = ConcurrentHashMap.newKeySet();
        Set<String> errors = ConcurrentHashMap.newKeySet();
        AtomicLong consumed = new AtomicLong();
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        ExecutorService threads = Executors.newFixedThreadPool(members);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int i = 0; i < members; i++) {
                int index = i;
                running.add(threads.submit(() -> consume(index, expected, seen, consumed, errors, deadline)));
            }
            for (Future<?> member : running) {
                member.get(timeout.toMillis() + 15_000, TimeUnit.MILLISECONDS);
            }
        } catch (ExecutionException | TimeoutException e) {
            errors.add("group member failed: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            errors.add("interrupted");
        } finally {
            threads.shutdownNow();
        }
        Set<RecordIdentity> missing = new HashSet<>(expected);
        missing.removeAll(seen);
        return new GroupReadResult(consumed.get(), seen.size(), missing.size(),
                missing.stream().sorted().limit(5).toList(), Duration.ofNanos(System.nanoTime() - start), new ArrayList<>(errors));
    }

    private void consume(int index, Set<RecordIdentity> expected, Set<RecordIdentity> seen, AtomicLong consumed,
                         Set<String> errors, long deadline) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(properties(index))) {
            consumer.subscribe(List.of(topic));
            while (System.nanoTime() < deadline && !seen.containsAll(expected)) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(POLL)) {
                    consumed.incrementAndGet();
                    RecordIdentity.parseValue(record.value()).ifPresent(seen::add);
                }
                consumer.commitAsync((offsets, error) -> {
                    if (error != null && !isRebalance(error)) {
                        errors.add("member " + index + " commit: " + error);
                    }
                });
            }
            commitFinal(consumer, index, errors);
        } catch (KafkaException e) {
            errors.add("member " + index + ": " + e);
        }
    }

    /** Commits what this member read; a rebalance caused by members leaving as they finish is expected. */
    private static void commitFinal(KafkaConsumer<byte[], byte[]> consumer, int index, Set<String> errors) {
        try {
            consumer.commitSync(Duration.ofSeconds(5));
        } catch (KafkaException e) {
            if (!isRebalance(e)) {
                errors.add("member " + index + " final commit: " + e);
            }
        }
    }

    private static boolean isRebalance(Exception error) {
        return error instanceof RebalanceInProgressException || error instanceof CommitFailedException;
    }

    private Properties properties(int index) {
        Properties properties = new Properties();
        properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapAddresses.get(index % bootstrapAddresses.size()));
        properties.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        properties.put(ConsumerConfig.CLIENT_ID_CONFIG, groupId + "-" + index);
        properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        properties.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        properties.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        return properties;
    }
}
