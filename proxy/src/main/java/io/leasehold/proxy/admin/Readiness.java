package io.leasehold.proxy.admin;

import java.util.Objects;

/**
 * Whether the proxy should receive new client connections, and if not, why (shown by
 * {@code /readyz} so an operator sees the cause without reading logs).
 */
public record Readiness(boolean ready, String reason) {

    public Readiness {
        Objects.requireNonNull(reason, "reason");
    }

    /** Ready, with the reason "ready". */
    public static Readiness ok() {
        return new Readiness(true, "ready");
    }

    /** Not ready for the given reason. */
    public static Readiness notReady(String reason) {
        return new Readiness(false, reason);
    }
}
