package io.leasehold.proxy.security;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Checks a {@link UsersFile} for changes every {@code interval} on a thread of its own, so file
 * reads and parsing never run on an event loop while clients authenticate.
 */
public final class UsersFileWatcher implements AutoCloseable {
    private final ScheduledExecutorService thread;

    /** Starts checking {@code users} every {@code interval}. */
    public UsersFileWatcher(UsersFile users, Duration interval) {
        this.thread = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread watcher = new Thread(task, "users-file-watcher");
            watcher.setDaemon(true);
            return watcher;
        });
        thread.scheduleWithFixedDelay(users::reloadIfChanged, interval.toNanos(), interval.toNanos(),
                TimeUnit.NANOSECONDS);
    }

    /** Stops checking. */
    @Override
    public void close() {
        thread.shutdownNow();
    }
}
