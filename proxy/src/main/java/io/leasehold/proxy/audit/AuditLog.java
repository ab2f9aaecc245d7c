package io.leasehold.proxy.audit;

/**
 * Where authorization and authentication decisions are reported for the audit log. Reporting
 * must never block: it runs on the event loop that serves the client.
 */
public interface AuditLog {

    /** Whether reports are written at all; callers skip building events when not. */
    boolean enabled();

    /** Reports {@code event}; returns at once, whether or not the event can be written. */
    void record(AuditEvent event);

    /** No audit log ({@code audit.file} unset): nothing is written. */
    static AuditLog none() {
        return new AuditLog() {
            @Override
            public boolean enabled() {
                return false;
            }

            @Override
            public void record(AuditEvent event) {
                // No audit.file: the event is not kept.
            }
        };
    }
}
