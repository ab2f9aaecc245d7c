package io.leasehold.bench.suite;

import io.leasehold.bench.load.ProducerWorkload;
import io.leasehold.bench.load.Timing;
import java.time.Duration;
import java.util.List;

/**
 * What one suite measures.
 *
 * @param rounds            direct/proxy pairs per configuration
 * @param timing            warm-up and measurement of each produce run
 * @param scaling           produce workloads differing only in producer count (the chart)
 * @param produce           further produce workloads (sizes, acks, linger)
 * @param halfSaturation    workloads re-run at half the direct maximum throughput for latency
 * @param consumeRecordSize record size of the consumer benchmark's topic, 0 for none
 * @param consumeBytes      payload bytes in the consumer's topic (read again from the start when done)
 * @param consumeTimeLimit  how long a consumer may wait for its first records
 * @param partitions        partitions of each topic
 * @param producerBuffer    each producer's buffer.memory in bytes
 */
public record Plan(int rounds, Timing timing, List<ProducerWorkload> scaling, List<ProducerWorkload> produce,
        List<ProducerWorkload> halfSaturation, int consumeRecordSize, long consumeBytes, Duration consumeTimeLimit,
        int partitions, int producerBuffer) {
}
