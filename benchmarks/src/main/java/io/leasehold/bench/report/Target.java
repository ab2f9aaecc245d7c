package io.leasehold.bench.report;

/**
 * Where a load run's clients connect: straight to the backend, or through one of the proxies
 * measured next to each other. {@link #label()} names it in logs and the CSV, {@link #column()}
 * in table headers.
 */
public enum Target {
    DIRECT("direct", "d", "direct"),
    /** Leasehold showing clients one broker (presentation.mode single-node). */
    LEASEHOLD("leasehold", "L1", "Leasehold single-node"),
    /** Leasehold showing one node per owner (presentation.mode node-per-owner). */
    LEASEHOLD_NODES("leasehold-nodes", "LN", "Leasehold node-per-owner"),
    /** Kroxylicious with a port-identifies-node gateway and no filters. */
    KROXYLICIOUS("kroxylicious", "K", "Kroxylicious");

    private final String label;
    private final String column;
    private final String description;

    Target(String label, String column, String description) {
        this.label = label;
        this.column = column;
        this.description = description;
    }

    /** How the tables' legend names it. */
    public String description() {
        return description;
    }

    public String label() {
        return label;
    }

    public String column() {
        return column;
    }

    public boolean isProxy() {
        return this != DIRECT;
    }
}
