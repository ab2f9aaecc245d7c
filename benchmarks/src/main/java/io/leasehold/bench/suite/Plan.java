package io.leasehold.bench.suite;

import io.leasehold.bench.load.StallPlan;
import io.leasehold.bench.load.Timing;
import java.time.Duration;
import java.util.List;

/**
 * What one suite measures.
 *
 * @param rounds            runs of every configuration on every path (the order rotates per round)
 * @param timing            warm-up and measurement of each produce and consume run
 * @param scaling           produce cases differing only in producer count (the chart)
 * @param produce           further produce cases (sizes, acks, linger, placement)
 * @param halfSaturation    cases re-run at half and a twentieth of the direct maximum, for latency
 * @param consume           one consumer run per placement listed
 * @param consumeRecordSize record size of the consumer benchmark's topics
 * @param consumeBytes      payload bytes in each consumer topic (read again from the start when done)
 * @param consumeTimeLimit  how long a consumer may wait for its first records
 * @param partitions        partitions of each topic
 * @param producerBuffer    each producer's buffer.memory in bytes
 * @param stall             the owner-stall measurement, or null for none
 */
public record Plan(int rounds, Timing timing, List<ProduceCase> scaling, List<ProduceCase> produce,
        List<ProduceCase> halfSaturation, List<Placement> consume, int consumeRecordSize, long consumeBytes,
        Duration consumeTimeLimit, int partitions, int producerBuffer, StallPlan stall) {
}
