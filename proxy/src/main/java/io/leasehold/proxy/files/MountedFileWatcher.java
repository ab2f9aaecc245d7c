package io.leasehold.proxy.files;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches mounted files (users, ACLs, certificates, JWKS) on one thread of its own, so reading and
 * parsing them never runs on an event loop. Every interval it reads each watched set of files and,
 * when their content changed, hands the new content to that set's {@link Reload}. A change that
 * cannot be read or used is logged and counted once (not on every check) and the reload keeps
 * whatever it had in force: a {@link Reload} installs its new state only when it succeeds.
 */
public final class MountedFileWatcher implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MountedFileWatcher.class);

    /** Turns changed content into the state in force. */
    @FunctionalInterface
    public interface Reload {
        /**
         * Parses {@code contents} and installs the result.
         *
         * @return a short description of what is now in force, for the log line (e.g. "12 rules")
         * @throws Exception with a message saying what is wrong when the content is not usable;
         *                   the previous state must then stay in force
         */
        String apply(FileContents contents) throws Exception;
    }

    /** Told the outcome of each change once, e.g. to count reloads. */
    @FunctionalInterface
    public interface Outcomes {
        void reloaded(boolean usable);

        /** Counts nothing. */
        Outcomes UNCOUNTED = usable -> { };
    }

    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread watcher = new Thread(runnable, "leasehold-file-watch");
        watcher.setDaemon(true);
        return watcher;
    });
    private final List<Watched> watched = new CopyOnWriteArrayList<>();

    /** Starts checking every {@code interval}; nothing is watched until {@link #watch}. */
    public MountedFileWatcher(Duration interval) {
        thread.scheduleWithFixedDelay(this::checkNow, interval.toNanos(), interval.toNanos(), TimeUnit.NANOSECONDS);
    }

    /**
     * Watches the files of {@code loaded} from now on.
     *
     * @param what   what the files hold, in log lines (e.g. "users file")
     * @param loaded the content the current state was built from: only a change from it is reloaded
     */
    public void watch(String what, FileContents loaded, Reload reload, Outcomes outcomes) {
        watched.add(new Watched(what, reload, outcomes, loaded));
    }

    /** Checks every watched set of files once, as the thread does each interval. */
    public synchronized void checkNow() {
        for (Watched each : watched) {
            try {
                each.check();
            } catch (RuntimeException e) {
                // One broken check must not stop the schedule for good.
                LOG.warn("Checking the {} failed", each.what, e);
            }
        }
    }

    /** Stops checking. */
    @Override
    public void close() {
        thread.shutdownNow();
    }

    private static final class Watched {
        private final String what;
        private final Reload reload;
        private final Outcomes outcomes;
        /** The content last looked at, usable or not; only the checking thread touches it. */
        private FileContents seen;

        Watched(String what, Reload reload, Outcomes outcomes, FileContents loaded) {
            this.what = what;
            this.reload = reload;
            this.outcomes = outcomes;
            this.seen = loaded;
        }

        void check() {
            FileContents now = FileContents.read(seen.files());
            if (now.sameAs(seen)) {
                return;
            }
            // Remembered before it is used, so a bad change is reported once, not on every check.
            seen = now;
            if (!now.readable()) {
                LOG.warn("Keeping the previous {}: cannot read {}", what, now.problem());
                outcomes.reloaded(false);
                return;
            }
            try {
                String inForce = reload.apply(now);
                LOG.info("Reloaded the {} from {}: {}", what, now.files(), inForce);
                outcomes.reloaded(true);
            } catch (Exception e) {
                LOG.warn("Keeping the previous {}: the changed file is not usable:{}{}", what,
                        System.lineSeparator(), e.getMessage());
                outcomes.reloaded(false);
            }
        }
    }
}
