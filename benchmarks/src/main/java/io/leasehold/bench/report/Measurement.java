package io.leasehold.bench.report;

import io.leasehold.bench.load.LoadResult;
import io.leasehold.bench.process.MachineCpu;

/**
 * One load run of one round against one target, with the proxy's CPU time and resident memory,
 * the brokers' CPU time and the whole machine's CPU time over that run. {@code result} is null
 * when the run failed; {@code failure} then says why.
 */
public record Measurement(Target target, int round, LoadResult result, double proxyCpuSeconds,
        long proxyRssBytes, double brokerCpuSeconds, MachineCpu machineCpu, String failure) {

    public static Measurement failed(Target target, int round, String failure) {
        return new Measurement(target, round, null, 0, 0, 0, new MachineCpu(0, 0), failure);
    }

    public boolean succeeded() {
        return result != null;
    }
}
