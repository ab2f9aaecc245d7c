package io.leasehold.bench.suite;

import java.util.List;
import java.util.Optional;

/** The brokers a suite measures: what clients connect to directly, and how topics are made. */
public interface Backend {

    /** Name used in tables, e.g. "kafka". */
    String name();

    /** Bootstrap list for clients that bypass the proxies. */
    String directBootstrap();

    /** Process ids of the broker JVMs, whose CPU time is measured next to the proxies'. */
    List<Long> pids();

    /** Creates a topic placed as asked (where the backend can) and makes sure the proxies can route it. */
    void createTopic(String topic, int partitions, Placement placement);

    /**
     * The owner a stall test may stop: the broker id and a handle that pauses and resumes it; empty
     * when this backend cannot do that.
     */
    Optional<StallableOwner> stallableOwner();

    /** A broker that can be frozen and resumed, and the partitions of a topic it owns. */
    interface StallableOwner {

        int brokerId();

        void pause();

        void resume();

        /** Blocks until every broker answers again after a resume. */
        void awaitRecovered();

        /** The partitions of {@code topic} this broker owns. */
        List<Integer> ownedPartitions(String topic);
    }
}
