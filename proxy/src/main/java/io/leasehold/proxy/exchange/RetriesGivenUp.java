package io.leasehold.proxy.exchange;

import io.leasehold.proxy.admin.ProxyMetrics;
import io.leasehold.proxy.logging.ClientText;
import io.leasehold.proxy.logging.WarningRateLimiter;
import io.leasehold.proxy.request.ClientContext;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.kafka.common.protocol.ApiKeys;
import org.slf4j.Logger;

/**
 * Reports partitions the proxy stopped retrying and answered with the rejection: the
 * client now sees the error and retries itself, which a producer that is not idempotent may do
 * out of order. Counted by API and reason; logged at most once per second per API and reason.
 */
final class RetriesGivenUp {
    /** Why retrying stopped. */
    enum Reason {
        /** The request's retry budget could not fit another attempt. */
        BUDGET("budget"),
        /** Nobody waits for the answer any more. */
        CLIENT_GONE("client_gone"),
        /** The partition's broker could not be reached on {@link PartitionedExchange#UNREACHABLE_TRIES} attempts. */
        UNREACHABLE("unreachable");

        private final String tag;

        Reason(String tag) {
            this.tag = tag;
        }

        String tag() {
            return tag;
        }
    }

    /** Partitions named in one line; the rest are only counted. */
    static final int MAX_LISTED = 5;

    private final Logger log;
    private final ProxyMetrics metrics;
    private final WarningRateLimiter warnings;

    RetriesGivenUp(Logger log, ProxyMetrics metrics, WarningRateLimiter warnings) {
        this.log = log;
        this.metrics = metrics;
        this.warnings = warnings;
    }

    /** {@code partitions} (topic-partition names) were answered with their last error after {@code attempts} attempts. */
    void report(ApiKeys api, ClientContext client, List<String> partitions, int attempts, Reason reason,
                long elapsedMillis) {
        metrics.retriesGivenUp(api, reason.tag(), partitions.size());
        String listed = partitions.stream().limit(MAX_LISTED).map(ClientText::escape).collect(Collectors.joining(", "));
        String more = partitions.size() > MAX_LISTED ? " and " + (partitions.size() - MAX_LISTED) + " more" : "";
        warnings.warn(log, "retries given up " + api.name + " " + reason.tag(),
                "{} from {}: gave up retrying {}{} after {} attempt(s) in {} ms ({}); the client gets the rejection "
                        + "and retries itself", api.name, client.remote(), listed, more, attempts,
                elapsedMillis, reason.tag());
    }
}
