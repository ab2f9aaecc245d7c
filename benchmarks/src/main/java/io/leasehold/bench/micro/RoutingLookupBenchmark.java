package io.leasehold.bench.micro;

import io.leasehold.routing.snapshot.BrokerAddress;
import io.leasehold.routing.snapshot.Ownership;
import io.leasehold.routing.snapshot.RoutingSnapshot;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The proxy's per-partition routing decision: owner of a (topic, partition) in the current
 * {@link RoutingSnapshot}, then that owner's address. Topics have 100 partitions each; lookups
 * walk a pre-shuffled list so that the CPU cannot predict them.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RoutingLookupBenchmark {

    private static final int PARTITIONS_PER_TOPIC = 100;
    private static final int LOOKUPS = 4096;

    @Param({"1000", "100000"})
    public int partitions;

    private RoutingSnapshot snapshot;
    private String[] topics;
    private int[] partitionNumbers;
    private int next;

    @Setup
    public void buildSnapshot() {
        RoutingSnapshot.Builder builder = RoutingSnapshot.builder();
        for (int id = 1; id <= 3; id++) {
            builder.broker(new BrokerAddress(id, "10.0.0." + id, 9092, null));
        }
        int topicCount = partitions / PARTITIONS_PER_TOPIC;
        for (int t = 0; t < topicCount; t++) {
            for (int p = 0; p < PARTITIONS_PER_TOPIC; p++) {
                builder.partition("topic-" + t, p, new Ownership(1 + (t + p) % 3, 1000L + t));
            }
        }
        snapshot = builder.revision(1).build();
        Random random = new Random(7);
        topics = new String[LOOKUPS];
        partitionNumbers = new int[LOOKUPS];
        for (int i = 0; i < LOOKUPS; i++) {
            // Fresh String instances, as decoded from a request: equals() cannot shortcut on identity.
            topics[i] = "topic-" + random.nextInt(topicCount);
            partitionNumbers[i] = random.nextInt(PARTITIONS_PER_TOPIC);
        }
    }

    @Benchmark
    public BrokerAddress ownerAndAddress() {
        int i = next++ & (LOOKUPS - 1);
        Ownership owner = snapshot.partitionOwner(topics[i], partitionNumbers[i]);
        return owner == null ? null : snapshot.broker(owner.brokerId());
    }
}
