package io.leasehold.routing.watch;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs each malformed etcd entry once, however often it is re-read or re-written, so one bad key
 * cannot flood the log. After {@value #MAX_REMEMBERED} distinct keys it stops logging individual
 * entries and says so once.
 */
final class MalformedEntryLog {

    private static final Logger LOG = LoggerFactory.getLogger(MalformedEntryLog.class);
    private static final int MAX_REMEMBERED = 1000;

    private final Set<String> logged = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean overflowReported = new AtomicBoolean();

    /** Reports that {@code key} was skipped because of {@code problem}, unless already reported. */
    void skipped(String key, String problem) {
        if (logged.size() >= MAX_REMEMBERED) {
            if (overflowReported.compareAndSet(false, true)) {
                LOG.warn("more than {} malformed ownership entries in etcd; further ones are skipped without a log line",
                        MAX_REMEMBERED);
            }
            return;
        }
        if (logged.add(key)) {
            LOG.warn("skipping malformed etcd entry {}: {}", key, problem);
        }
    }
}
