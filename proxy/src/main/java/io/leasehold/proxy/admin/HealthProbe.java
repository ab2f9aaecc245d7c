package io.leasehold.proxy.admin;

/** What the admin endpoints ask about the proxy's health; implemented from live proxy state. */
public interface HealthProbe {

    /** False only when the process is broken beyond recovery and should be restarted. */
    boolean isLive();

    /** Whether the proxy can serve clients now; evaluated on every {@code /readyz} request. */
    Readiness readiness();
}
