package io.leasehold.bench.suite;

import java.util.List;

/** The brokers a suite measures: what clients connect to directly, and how topics are made. */
public interface Backend {

    /** Name used in tables, e.g. "kafka". */
    String name();

    /** Bootstrap list for clients that bypass the proxy. */
    String directBootstrap();

    /** Process ids of the broker JVMs, whose CPU time is measured next to the proxy's. */
    List<Long> pids();

    /** Creates a topic and makes sure the proxy can route all its partitions. */
    void createTopic(String topic, int partitions);
}
