package io.leasehold.bench.suite;

/** Which brokers lead a benchmark topic's partitions. */
public enum Placement {
    /** Every partition on the first broker: the proxy forwards each request to one owner. */
    ONE_OWNER("one-owner", ", 1 owner"),
    /** Partition {@code p} on broker {@code p mod N}: requests and fetches span every owner. */
    SPREAD("spread", ", 3 owners"),
    /** Whichever broker claims a partition first (lease-aware reference brokers). */
    CLAIMED("claimed", "");

    private final String topicSuffix;
    private final String labelSuffix;

    Placement(String topicSuffix, String labelSuffix) {
        this.topicSuffix = topicSuffix;
        this.labelSuffix = labelSuffix;
    }

    /** A topic name for this placement, e.g. {@code bench-produce-spread}. */
    public String topic(String base) {
        return base + "-" + topicSuffix;
    }

    /** Appended to a workload's label in the tables. */
    public String labelSuffix() {
        return labelSuffix;
    }
}
