package io.leasehold.bench;

import io.leasehold.bench.load.ProducerWorkload;
import io.leasehold.bench.load.StallPlan;
import io.leasehold.bench.load.Timing;
import io.leasehold.bench.suite.Placement;
import io.leasehold.bench.suite.Plan;
import io.leasehold.bench.suite.ProduceCase;
import java.time.Duration;
import java.util.List;

/**
 * The measured matrices. The full Kafka plan (four paths, five rounds, the owner stall) takes
 * about 20 minutes on a 2-core machine; the quick plans check the set-up in under 3 minutes and
 * measure nothing.
 */
final class Plans {

    private static final int KIB = 1024;
    /** buffer.memory per producer against Kafka (default is 32 MiB). */
    private static final int KAFKA_BUFFER = 4 << 20;
    /**
     * Against the reference brokers, which commit every produce to etcd and move well under
     * 1 MB/s on a busy 2-core machine: a small buffer keeps queueing (and flush at the end of a
     * run) to a few seconds.
     */
    private static final int REFERENCE_BUFFER = 512 << 10;
    /** Three partitions per broker of the three-broker cluster. */
    private static final int KAFKA_PARTITIONS = 9;

    private Plans() {
    }

    /**
     * The targets: produce to one owner with 1, 2 and 4 producers; 1 KiB acks=all to one
     * owner and over three; consume from one owner and over three; one owner stopped for 15 s.
     */
    static Plan kafka(boolean quick) {
        if (quick) {
            return new Plan(1, timing(300, 1000),
                    List.of(one(1, "1", 5)),
                    List.of(spread(4, "all", 5)),
                    List.of(),
                    List.of(Placement.ONE_OWNER, Placement.SPREAD),
                    KIB, 16L << 20, Duration.ofSeconds(20), KAFKA_PARTITIONS, KAFKA_BUFFER,
                    new StallPlan(1, 2, 3000, KIB, Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(3)));
        }
        return new Plan(5, timing(1000, 2500),
                List.of(one(1, "1", 5), one(2, "1", 5), one(4, "1", 5)),
                List.of(one(1, "all", 0), one(4, "all", 5), spread(4, "all", 5)),
                List.of(),
                List.of(Placement.ONE_OWNER, Placement.SPREAD),
                KIB, 256L << 20, Duration.ofSeconds(30), KAFKA_PARTITIONS, KAFKA_BUFFER,
                new StallPlan(5, 2, 4000, KIB, Duration.ofSeconds(3), Duration.ofSeconds(5), Duration.ofSeconds(10)));
    }

    static Plan reference(boolean quick) {
        if (quick) {
            return new Plan(1, timing(500, 1500),
                    List.of(claimed(2, KIB, "1", 5)),
                    List.of(),
                    List.of(),
                    List.of(),
                    KIB, 2L << 20, Duration.ofSeconds(20), 6, REFERENCE_BUFFER, null);
        }
        return new Plan(2, timing(1000, 3000),
                List.of(claimed(1, KIB, "1", 5), claimed(4, KIB, "1", 5)),
                List.of(),
                List.of(claimed(1, KIB, "1", 0)),
                List.of(Placement.CLAIMED),
                KIB, 8L << 20, Duration.ofSeconds(30), 6, REFERENCE_BUFFER, null);
    }

    /**
     * {@code plan} restricted to its produce side, its acks=all produce cases ("acks-all"), its
     * consume side or its owner stall; "all" leaves it whole.
     */
    static Plan only(Plan plan, String side) {
        return switch (side) {
            case "acks-all" -> new Plan(plan.rounds(), plan.timing(), List.of(),
                    plan.produce().stream().filter(c -> c.workload().acks().equals("all")).toList(), List.of(),
                    List.of(), plan.consumeRecordSize(), plan.consumeBytes(), plan.consumeTimeLimit(),
                    plan.partitions(), plan.producerBuffer(), null);
            case "produce" -> new Plan(plan.rounds(), plan.timing(), plan.scaling(), plan.produce(),
                    plan.halfSaturation(), List.of(), plan.consumeRecordSize(), plan.consumeBytes(),
                    plan.consumeTimeLimit(), plan.partitions(), plan.producerBuffer(), null);
            case "consume" -> new Plan(plan.rounds(), plan.timing(), List.of(), List.of(), List.of(),
                    plan.consume(), plan.consumeRecordSize(), plan.consumeBytes(), plan.consumeTimeLimit(),
                    plan.partitions(), plan.producerBuffer(), null);
            case "stall" -> new Plan(plan.rounds(), plan.timing(), List.of(), List.of(), List.of(), List.of(),
                    plan.consumeRecordSize(), plan.consumeBytes(), plan.consumeTimeLimit(), plan.partitions(),
                    plan.producerBuffer(), plan.stall());
            default -> plan;
        };
    }

    private static ProduceCase one(int producers, String acks, int lingerMs) {
        return new ProduceCase(new ProducerWorkload(producers, KIB, acks, lingerMs, 0), Placement.ONE_OWNER);
    }

    private static ProduceCase spread(int producers, String acks, int lingerMs) {
        return new ProduceCase(new ProducerWorkload(producers, KIB, acks, lingerMs, 0), Placement.SPREAD);
    }

    private static ProduceCase claimed(int producers, int recordBytes, String acks, int lingerMs) {
        return new ProduceCase(new ProducerWorkload(producers, recordBytes, acks, lingerMs, 0), Placement.CLAIMED);
    }

    private static Timing timing(long warmupMillis, long measureMillis) {
        return new Timing(Duration.ofMillis(warmupMillis), Duration.ofMillis(measureMillis));
    }
}
