package io.leasehold.routing.claim;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;
import io.leasehold.routing.etcd.EtcdBytes;
import io.leasehold.routing.etcd.ReconnectBackoff;
import io.leasehold.routing.keys.KeySchema;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the partition and group lease prefixes so a claimer hears when one of its keys is
 * deleted or overwritten behind its back. The etcd client resumes a watch by itself after
 * transient errors; when it gives a watch up (history compacted, fatal error) this restarts it at
 * the current revision and asks the owner to re-check its claims, since events in between are lost.
 */
final class LeaseKeyWatch implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LeaseKeyWatch.class);

    private final Client client;
    private final List<String> prefixes;
    private final Consumer<WatchEvent> onEvent;
    private final Runnable recheck;
    private final ScheduledExecutorService scheduler;
    private final ReconnectBackoff backoff = new ReconnectBackoff(Duration.ofMillis(100), Duration.ofSeconds(3));
    private final Object lock = new Object();
    private List<Watch.Watcher> watchers = List.of();
    private long generation;
    private boolean closed;

    LeaseKeyWatch(Client client, KeySchema keys, Consumer<WatchEvent> onEvent, Runnable recheck,
                  ScheduledExecutorService scheduler) {
        this.client = client;
        this.prefixes = List.of(keys.partitionLeasesPrefix(), keys.groupLeasesPrefix());
        this.onEvent = onEvent;
        this.recheck = recheck;
        this.scheduler = scheduler;
    }

    /** Starts watching changes after {@code revision}. */
    void start(long revision) {
        synchronized (lock) {
            if (closed) {
                return;
            }
            long mine = ++generation;
            watchers = prefixes.stream().map(prefix -> client.getWatchClient().watch(EtcdBytes.of(prefix),
                    WatchOption.builder().isPrefix(true).withRevision(revision + 1).build(), new Listener(mine)))
                    .toList();
        }
    }

    @Override
    public void close() {
        synchronized (lock) {
            closed = true;
            generation++;
            watchers.forEach(Watch.Watcher::close);
            watchers = List.of();
        }
    }

    private void restart(long failedGeneration) {
        synchronized (lock) {
            if (closed || failedGeneration != generation) {
                return;
            }
            generation++;
            watchers.forEach(Watch.Watcher::close);
            watchers = List.of();
        }
        resubscribe();
    }

    /** Reads the current revision, watches from there, then has the claims re-checked. */
    private void resubscribe() {
        client.getKVClient().get(EtcdBytes.of(prefixes.get(0)), GetOption.builder().withCountOnly(true).build())
                .orTimeout(5, TimeUnit.SECONDS)
                .whenComplete((response, error) -> {
                    synchronized (lock) {
                        if (closed) {
                            return;
                        }
                    }
                    if (error != null) {
                        long delay = backoff.next().toMillis();
                        LOG.debug("lease key watch restart failed, retrying in {} ms: {}", delay, error.toString());
                        scheduler.schedule(this::resubscribe, delay, TimeUnit.MILLISECONDS);
                        return;
                    }
                    backoff.reset();
                    start(response.getHeader().getRevision());
                    recheck.run();
                });
    }

    private final class Listener implements Watch.Listener {
        private final long generation;

        Listener(long generation) {
            this.generation = generation;
        }

        @Override
        public void onNext(WatchResponse response) {
            response.getEvents().forEach(onEvent);
        }

        @Override
        public void onError(Throwable error) {
            LOG.debug("lease key watch error (the client resumes it unless fatal): {}", error.toString());
        }

        @Override
        public void onCompleted() {
            restart(generation);
        }
    }
}
