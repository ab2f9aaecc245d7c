package io.leasehold.proxy.tls;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Looks at the files of every {@link ReloadingTls} at a fixed interval on its own thread, so
 * reading files and building contexts never runs on an event loop.
 */
public final class CertificateReloader implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CertificateReloader.class);

    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread t = new Thread(runnable, "leasehold-certificate-reload");
        t.setDaemon(true);
        return t;
    });

    /** Starts looking every {@code interval}. */
    public CertificateReloader(List<ReloadingTls> watched, Duration interval) {
        List<ReloadingTls> all = List.copyOf(watched);
        thread.scheduleWithFixedDelay(() -> all.forEach(this::reload), interval.toMillis(), interval.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    private void reload(ReloadingTls tls) {
        try {
            tls.reloadIfChanged();
        } catch (RuntimeException e) {
            // One broken reload must not stop the schedule for good.
            LOG.warn("Certificate reload failed", e);
        }
    }

    @Override
    public void close() {
        thread.shutdownNow();
    }
}
