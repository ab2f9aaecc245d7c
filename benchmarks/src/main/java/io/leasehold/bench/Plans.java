package io.leasehold.bench;

import io.leasehold.bench.load.ProducerWorkload;
import io.leasehold.bench.load.Timing;
import io.leasehold.bench.suite.Plan;
import java.time.Duration;
import java.util.List;

/**
 * The measured matrices. The full ones are chosen so that the whole command (build, both
 * backends, JMH) stays within 15 minutes on a 2-core machine; the quick ones take seconds.
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

    private Plans() {
    }

    static Plan kafka(boolean quick) {
        if (quick) {
            return new Plan(1, timing(500, 1500),
                    List.of(w(1, KIB, "1", 5), w(4, KIB, "1", 5)),
                    List.of(w(2, 10 * KIB, "all", 0)),
                    List.of(w(1, KIB, "1", 0)),
                    KIB, 32L << 20, Duration.ofSeconds(20), 8, KAFKA_BUFFER);
        }
        return new Plan(3, timing(1000, 3000),
                List.of(w(1, KIB, "1", 5), w(2, KIB, "1", 5), w(4, KIB, "1", 5), w(8, KIB, "1", 5)),
                List.of(w(4, 100, "1", 5), w(4, 10 * KIB, "1", 5),
                        w(1, KIB, "1", 0), w(4, KIB, "1", 0),
                        w(1, KIB, "all", 0), w(4, KIB, "all", 5)),
                List.of(w(1, KIB, "1", 0), w(1, KIB, "all", 0)),
                KIB, 1L << 30, Duration.ofSeconds(30), 8, KAFKA_BUFFER);
    }

    static Plan reference(boolean quick) {
        if (quick) {
            return new Plan(1, timing(500, 1500),
                    List.of(w(2, KIB, "1", 5)),
                    List.of(),
                    List.of(),
                    KIB, 2L << 20, Duration.ofSeconds(20), 6, REFERENCE_BUFFER);
        }
        return new Plan(2, timing(1000, 3000),
                List.of(w(1, KIB, "1", 5), w(4, KIB, "1", 5)),
                List.of(),
                List.of(w(1, KIB, "1", 0)),
                KIB, 8L << 20, Duration.ofSeconds(30), 6, REFERENCE_BUFFER);
    }

    /** {@code plan} restricted to its produce or its consume workloads; "all" leaves it whole. */
    static Plan only(Plan plan, String side) {
        return switch (side) {
            case "produce" -> new Plan(plan.rounds(), plan.timing(), plan.scaling(), plan.produce(),
                    plan.halfSaturation(), 0, 0, plan.consumeTimeLimit(), plan.partitions(), plan.producerBuffer());
            case "consume" -> new Plan(plan.rounds(), plan.timing(), List.of(), List.of(), List.of(),
                    plan.consumeRecordSize(), plan.consumeBytes(), plan.consumeTimeLimit(), plan.partitions(),
                    plan.producerBuffer());
            default -> plan;
        };
    }

    private static ProducerWorkload w(int producers, int recordBytes, String acks, int lingerMs) {
        return new ProducerWorkload(producers, recordBytes, acks, lingerMs, 0);
    }

    private static Timing timing(long warmupMillis, long measureMillis) {
        return new Timing(Duration.ofMillis(warmupMillis), Duration.ofMillis(measureMillis));
    }
}
