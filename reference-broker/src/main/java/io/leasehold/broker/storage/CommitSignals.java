package io.leasehold.broker.storage;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Tells waiting fetches on this broker that one of their partitions just got a local commit,
 * so they answer at once instead of at their next look at etcd. Commits made by other brokers
 * are found by that periodic look.
 */
public final class CommitSignals {

    private record Key(String topic, int partition) {
    }

    private final ConcurrentMap<Key, Set<Runnable>> listeners = new ConcurrentHashMap<>();

    /** Runs {@code wake} at each local commit of the partition until the returned handle is closed. */
    public AutoCloseable onCommit(String topic, int partition, Runnable wake) {
        Key key = new Key(topic, partition);
        listeners.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(wake);
        return () -> listeners.computeIfPresent(key, (k, set) -> {
            set.remove(wake);
            return set.isEmpty() ? null : set;
        });
    }

    public void committed(String topic, int partition) {
        Set<Runnable> waiting = listeners.get(new Key(topic, partition));
        if (waiting != null) {
            waiting.forEach(Runnable::run);
        }
    }
}
