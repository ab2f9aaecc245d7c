package io.leasehold.bench.report;

import java.util.Locale;

/** Where a load run's clients connect: straight to the backend, or through the proxy. */
public enum Target {
    DIRECT, PROXY;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
