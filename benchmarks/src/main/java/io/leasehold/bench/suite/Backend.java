package io.leasehold.bench.suite;

/** The brokers a suite measures: what clients connect to directly, and how topics are made. */
public interface Backend {

    /** Name used in tables, e.g. "kafka". */
    String name();

    /** Bootstrap list for clients that bypass the proxy. */
    String directBootstrap();

    /** Creates a topic and makes sure the proxy can route all its partitions. */
    void createTopic(String topic, int partitions);
}
