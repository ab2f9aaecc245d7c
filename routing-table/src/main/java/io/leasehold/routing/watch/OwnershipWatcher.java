package io.leasehold.routing.watch;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;
import io.leasehold.routing.etcd.EtcdBytes;
import io.leasehold.routing.etcd.ReconnectBackoff;
import io.leasehold.routing.keys.KeySchema;
import io.leasehold.routing.snapshot.Ownership;
import io.leasehold.routing.snapshot.PartitionId;
import io.leasehold.routing.snapshot.RoutingSnapshot;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The proxy's live view of the ownership keys in etcd.
 *
 * <p>It reads the partition-lease, group-lease and broker prefixes and KafScale's metadata
 * snapshot key at one revision R, then
 * watches them from R+1, so no write between the read and the watch is missed. Each batch of
 * events becomes a new immutable {@link RoutingSnapshot} (copy-on-write) published through a
 * volatile field, so readers never lock. When the watch breaks — history compacted, stream
 * error, etcd down, or no answer to progress requests — it keeps serving the last snapshot,
 * reports how stale it is, and reloads and re-watches with exponential backoff (up to 3 s).
 *
 * <p>All etcd work runs on one private thread, and route drops on another; {@link #invalidatePartition}
 * and {@link #invalidateGroup} may be called from any thread and only queue the drop.
 */
public final class OwnershipWatcher implements RoutingTable, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(OwnershipWatcher.class);
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration PROGRESS_INTERVAL = Duration.ofSeconds(1);
    /** A watch that has answered nothing, not even a progress request, for this long is treated as broken. */
    private static final Duration SILENCE_LIMIT = Duration.ofSeconds(5);
    /**
     * How long a rejected route stays dropped while etcd still names the same owner: long enough
     * for a retry to find the partition's real owner once etcd shows it, short enough that an
     * owner which rejected once but kept its key is tried again soon.
     */
    public static final Duration DEFAULT_REJECTION_HOLD = Duration.ofSeconds(1);

    private final Client client;
    private final List<String> prefixes;
    private final RangeLoader loader;
    private final EntryApplier applier;
    private final MetadataSnapshotReader metadataSnapshot;
    private final BrokerSourceConflicts conflicts = new BrokerSourceConflicts();
    private final DroppedRoutes dropped = new DroppedRoutes();
    private final Duration rejectionHold;
    private final ReconnectBackoff backoff = new ReconnectBackoff(Duration.ofMillis(100), Duration.ofSeconds(3));
    private final ScheduledExecutorService worker;
    private final List<Consumer<RoutingSnapshot>> listeners = new CopyOnWriteArrayList<>();
    private final CompletableFuture<Void> firstLoad = new CompletableFuture<>();
    /**
     * Drops rejected routes and restores them after the hold, apart from the etcd worker (whose
     * reloads may wait on etcd for seconds) and never on the callers' event loops.
     */
    private final ScheduledExecutorService drops;
    private final Queue<PendingDrop> pendingDrops = new ConcurrentLinkedQueue<>();
    /** Drops queued and not yet applied: asking again for one of them is not a new drop. */
    private final Set<PendingDrop> queuedDrops = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean dropsScheduled = new AtomicBoolean();
    /** Serializes snapshot replacement between the worker and drops threads. */
    private final Object lock = new Object();

    private volatile RoutingSnapshot current = RoutingSnapshot.empty();
    private volatile boolean loaded;
    private volatile boolean closed;
    /** System.nanoTime() when the view last was known to follow etcd; meaningful while broken. */
    private volatile long inSyncAt;
    private volatile boolean broken;

    // Worker-thread state.
    private List<Watch.Watcher> watchers = List.of();
    private long generation;
    private volatile long lastHeardAt;

    /** A rejected route waiting to be dropped: a partition's or (partition null) a group's. */
    private record PendingDrop(PartitionId partition, String group, Ownership rejected) {
    }

    private OwnershipWatcher(Client client, KeySchema keys, Duration rejectionHold) {
        this.client = client;
        this.rejectionHold = rejectionHold;
        // The snapshot key is read as a prefix too; keys that merely start with it are ignored.
        this.prefixes = List.of(keys.partitionLeasesPrefix(), keys.groupLeasesPrefix(), keys.brokersPrefix(),
                keys.metadataSnapshotKey());
        this.loader = new RangeLoader(client.getKVClient(), REQUEST_TIMEOUT);
        this.metadataSnapshot = new MetadataSnapshotReader(keys.metadataSnapshotKey());
        this.applier = new EntryApplier(keys, new MalformedEntryLog(), metadataSnapshot);
        this.worker = singleThread("leasehold-ownership-watcher");
        this.drops = singleThread("leasehold-route-drops");
        this.inSyncAt = System.nanoTime();
        this.broken = true;
    }

    private static ScheduledExecutorService singleThread(String name) {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        });
        // A reload or restore scheduled for later must not hold up close().
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        return executor;
    }

    /** Starts loading and watching in the background and returns at once; see {@link #awaitLoaded}. */
    public static OwnershipWatcher start(Client client, KeySchema keys) {
        return start(client, keys, DEFAULT_REJECTION_HOLD);
    }

    /** As {@link #start(Client, KeySchema)}, holding rejected routes dropped for {@code rejectionHold}. */
    public static OwnershipWatcher start(Client client, KeySchema keys, Duration rejectionHold) {
        OwnershipWatcher watcher = new OwnershipWatcher(client, keys, rejectionHold);
        watcher.worker.execute(watcher::reload);
        watcher.worker.scheduleWithFixedDelay(watcher::checkProgress, PROGRESS_INTERVAL.toMillis(),
                PROGRESS_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
        return watcher;
    }

    /** Waits until the first load from etcd completed; true if it did within {@code timeout}. */
    public boolean awaitLoaded(Duration timeout) throws InterruptedException {
        try {
            firstLoad.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            throw new IllegalStateException("the first load never fails, it retries", e);
        }
    }

    /** Completes (on the watcher's thread) once the first load from etcd has completed. */
    public CompletionStage<Void> whenLoaded() {
        return firstLoad.minimalCompletionStage();
    }

    @Override
    public RoutingSnapshot snapshot() {
        return current;
    }

    @Override
    public boolean isLoaded() {
        return loaded;
    }

    @Override
    public Duration staleness() {
        return broken ? Duration.ofNanos(System.nanoTime() - inSyncAt) : Duration.ZERO;
    }

    @Override
    public long rejectedMetadataSnapshots() {
        return metadataSnapshot.rejectedCount();
    }

    /**
     * Queues the drop and returns at once: callers are event loops, and rebuilding the snapshot
     * is O(topics + groups), so it runs on the drops thread, which takes every drop queued
     * meanwhile into one rebuild. Returns false if the route is no longer the rejected one, or its
     * drop is already queued.
     */
    @Override
    public boolean invalidatePartition(String topic, int partition, Ownership rejected) {
        if (rejected == null || !rejected.equals(current.partitionOwner(topic, partition))) {
            return false;
        }
        return queueDrop(new PendingDrop(new PartitionId(topic, partition), null, rejected));
    }

    @Override
    public boolean invalidateGroup(String group, Ownership rejected) {
        if (rejected == null || !rejected.equals(current.groupOwner(group))) {
            return false;
        }
        return queueDrop(new PendingDrop(null, group, rejected));
    }

    @Override
    public int suppressedPartitionOwner(String topic, int partition) {
        DroppedRoutes.Drop drop = dropped.partition(new PartitionId(topic, partition));
        return drop == null ? NONE_SUPPRESSED : drop.rejected().brokerId();
    }

    @Override
    public int suppressedGroupOwner(String group) {
        DroppedRoutes.Drop drop = dropped.group(group);
        return drop == null ? NONE_SUPPRESSED : drop.rejected().brokerId();
    }

    @Override
    public void ownerAccepted(String topic, int partition, int brokerId) {
        PartitionId id = new PartitionId(topic, partition);
        DroppedRoutes.Drop drop = dropped.partition(id);
        if (drop != null && drop.rejected().brokerId() == brokerId) {
            try {
                drops.execute(() -> restorePartition(id, drop));
            } catch (RejectedExecutionException e) {
                // Closed: the snapshot is no longer maintained.
            }
        }
    }

    private boolean queueDrop(PendingDrop drop) {
        if (!queuedDrops.add(drop)) {
            return false;
        }
        pendingDrops.add(drop);
        if (dropsScheduled.compareAndSet(false, true)) {
            try {
                drops.execute(this::applyDrops);
            } catch (RejectedExecutionException e) {
                // Closed: the snapshot is no longer maintained.
            }
        }
        return true;
    }

    /** Drops thread: every queued drop whose route is still the rejected one, in one new snapshot. */
    private void applyDrops() {
        dropsScheduled.set(false);
        List<PendingDrop> taken = new ArrayList<>();
        for (PendingDrop drop = pendingDrops.poll(); drop != null; drop = pendingDrops.poll()) {
            taken.add(drop);
        }
        if (taken.isEmpty()) {
            return;
        }
        synchronized (lock) {
            RoutingSnapshot.Builder builder = current.toBuilder();
            boolean changed = false;
            for (PendingDrop drop : taken) {
                changed |= drop.partition() != null ? dropPartition(builder, drop) : dropGroup(builder, drop);
            }
            if (changed) {
                publish(builder.build());
            }
        }
        taken.forEach(queuedDrops::remove);
    }

    private boolean dropPartition(RoutingSnapshot.Builder builder, PendingDrop pending) {
        PartitionId id = pending.partition();
        if (!pending.rejected().equals(builder.partitionOwner(id.topic(), id.partition()))) {
            return false;
        }
        builder.removePartition(id.topic(), id.partition());
        DroppedRoutes.Drop drop = dropped.dropPartition(id, pending.rejected());
        afterHold(() -> restorePartition(id, drop));
        return true;
    }

    private boolean dropGroup(RoutingSnapshot.Builder builder, PendingDrop pending) {
        String group = pending.group();
        if (!pending.rejected().equals(builder.groupOwner(group))) {
            return false;
        }
        builder.removeGroup(group);
        DroppedRoutes.Drop drop = dropped.dropGroup(group, pending.rejected());
        afterHold(() -> restoreGroup(group, drop));
        return true;
    }

    /** The hold of {@code drop} is over: if etcd still names the rejected owner, route to it again. */
    private void restorePartition(PartitionId id, DroppedRoutes.Drop drop) {
        synchronized (lock) {
            if (dropped.expirePartition(id, drop) && current.partitionOwner(id.topic(), id.partition()) == null) {
                publish(current.toBuilder().partition(id.topic(), id.partition(), drop.rejected()).build());
            }
        }
    }

    private void restoreGroup(String group, DroppedRoutes.Drop drop) {
        synchronized (lock) {
            if (dropped.expireGroup(group, drop) && current.groupOwner(group) == null) {
                publish(current.toBuilder().group(group, drop.rejected()).build());
            }
        }
    }

    private void afterHold(Runnable restore) {
        try {
            drops.schedule(restore, rejectionHold.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // Closed: the snapshot is no longer maintained.
        }
    }

    @Override
    public void addListener(Consumer<RoutingSnapshot> listener) {
        listeners.add(listener);
    }

    /** Stops watching; the last snapshot stays readable. Does not close the etcd client. */
    @Override
    public void close() {
        closed = true;
        worker.execute(this::stopWatching);
        worker.shutdown();
        drops.shutdown();
        try {
            worker.awaitTermination(5, TimeUnit.SECONDS);
            drops.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        worker.shutdownNow();
        drops.shutdownNow();
    }

    /** Worker thread: a full read at revision R, a fresh snapshot, and a watch from R+1. */
    private void reload() {
        if (closed) {
            return;
        }
        stopWatching();
        RoutingSnapshot.Builder builder = RoutingSnapshot.builder();
        DroppedRoutes nothingDropped = new DroppedRoutes();
        long revision;
        long started = System.nanoTime();
        try {
            metadataSnapshot.beginLoad();
            revision = loader.load(prefixes, entry -> applier.put(builder, entry, nothingDropped));
            metadataSnapshot.endLoad(builder);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        } catch (Exception e) {
            Duration delay = backoff.next();
            LOG.warn("could not load ownership from etcd ({}); serving the last snapshot (stale {} ms), retrying in {} ms",
                    rootMessage(e), staleness().toMillis(), delay.toMillis());
            worker.schedule(this::reload, delay.toMillis(), TimeUnit.MILLISECONDS);
            return;
        }
        RoutingSnapshot snapshot;
        synchronized (lock) {
            dropped.reapply(builder);
            snapshot = builder.revision(revision).build();
            publish(snapshot);
        }
        conflicts.check(snapshot);
        backoff.reset();
        lastHeardAt = System.nanoTime();
        startWatching(revision);
        broken = false;
        if (!loaded) {
            loaded = true;
            firstLoad.complete(null);
        }
        LOG.info("loaded {} partition owners, {} group owners and {} brokers at etcd revision {} in {} ms",
                snapshot.partitionCount(), snapshot.groups().size(), snapshot.brokers().size(), revision,
                (System.nanoTime() - started) / 1_000_000);
    }

    private void startWatching(long revision) {
        long mine = ++generation;
        List<Watch.Watcher> started = new ArrayList<>(prefixes.size());
        for (String prefix : prefixes) {
            WatchOption option = WatchOption.builder().isPrefix(true).withRevision(revision + 1).withPrevKV(true).build();
            started.add(client.getWatchClient().watch(EtcdBytes.of(prefix), option, new Listener(mine)));
        }
        watchers = started;
    }

    private void stopWatching() {
        generation++;
        watchers.forEach(Watch.Watcher::close);
        watchers = List.of();
    }

    /** Worker thread: one watch response becomes one new snapshot. */
    private void apply(long fromGeneration, WatchResponse response) {
        if (fromGeneration != generation) {
            return;
        }
        lastHeardAt = System.nanoTime();
        List<WatchEvent> events = response.getEvents();
        if (events.isEmpty()) {
            return;
        }
        synchronized (lock) {
            RoutingSnapshot.Builder builder = current.toBuilder();
            long revision = current.revision();
            for (WatchEvent event : events) {
                KeyValue entry = event.getKeyValue();
                if (event.getEventType() == WatchEvent.EventType.DELETE) {
                    applier.delete(builder, EtcdBytes.text(entry.getKey()), dropped);
                } else if (event.getEventType() == WatchEvent.EventType.PUT) {
                    applier.put(builder, entry, dropped);
                }
                revision = Math.max(revision, entry.getModRevision());
            }
            publish(builder.revision(revision).build());
        }
        conflicts.check(current);
    }

    /** Worker thread: the watch of {@code fromGeneration} failed; go stale and reload after a backoff. */
    private void watchBroke(long fromGeneration, String reason) {
        if (fromGeneration != generation || closed) {
            return;
        }
        stopWatching();
        if (!broken) {
            inSyncAt = lastHeardAt;
            broken = true;
        }
        Duration delay = backoff.next();
        LOG.warn("ownership watch broke ({}); serving the last snapshot, reloading in {} ms", reason, delay.toMillis());
        worker.schedule(this::reload, delay.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Worker thread: asks etcd for progress on the live watches and declares them broken if etcd
     * has been silent too long. A cut connection does not always end a stream with an error.
     */
    private void checkProgress() {
        if (watchers.isEmpty()) {
            return;
        }
        if (System.nanoTime() - lastHeardAt > SILENCE_LIMIT.toNanos()) {
            watchBroke(generation, "etcd answered nothing for " + SILENCE_LIMIT.toSeconds() + " s");
            return;
        }
        watchers.forEach(Watch.Watcher::requestProgress);
    }

    /** Caller holds {@link #lock}. */
    private void publish(RoutingSnapshot snapshot) {
        current = snapshot;
        for (Consumer<RoutingSnapshot> listener : listeners) {
            try {
                listener.accept(snapshot);
            } catch (RuntimeException e) {
                LOG.warn("routing snapshot listener {} failed", listener, e);
            }
        }
    }

    private static String rootMessage(Throwable error) {
        Throwable root = error;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + ": " + root.getMessage();
    }

    /** Hands a watch's callbacks to the worker thread, tagged with the watch generation they belong to. */
    private final class Listener implements Watch.Listener {
        private final long generation;

        Listener(long generation) {
            this.generation = generation;
        }

        @Override
        public void onNext(WatchResponse response) {
            submit(() -> apply(generation, response));
        }

        @Override
        public void onError(Throwable error) {
            submit(() -> watchBroke(generation, rootMessage(error)));
        }

        @Override
        public void onCompleted() {
            submit(() -> watchBroke(generation, "the watch ended"));
        }

        private void submit(Runnable task) {
            if (!closed) {
                try {
                    worker.execute(task);
                } catch (RejectedExecutionException e) {
                    // Closed meanwhile: nothing to do.
                }
            }
        }
    }
}
