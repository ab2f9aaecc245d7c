package io.leasehold.proxy.audit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The audit log's two counters: lines written to {@code audit.file}
 * ({@code leasehold_audit_lines_written_total}) and lines dropped because the writer fell behind
 * ({@code leasehold_audit_lines_dropped_total}), which the {@code LeaseholdAuditLinesDropped}
 * alert watches.
 */
public final class AuditMetrics {
    private final Counter written;
    private final Counter dropped;

    public AuditMetrics(MeterRegistry registry) {
        this.written = Counter.builder("leasehold.audit.lines.written")
                .description("Audit lines written and flushed to audit.file")
                .register(registry);
        this.dropped = Counter.builder("leasehold.audit.lines.dropped")
                .description("Audit lines dropped because the writer fell behind (its queue was full)")
                .register(registry);
    }

    /** Counts lines written. */
    public Counter written() {
        return written;
    }

    /** Counts lines dropped. */
    public Counter dropped() {
        return dropped;
    }
}
