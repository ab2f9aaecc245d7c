package io.leasehold.bench.report;

import io.leasehold.bench.load.LoadResult;

/**
 * One load run of one round against one target, with the proxy's CPU time and resident memory
 * and the brokers' CPU time over that run. {@code result} is null when the run failed;
 * {@code failure} then says why.
 */
public record Measurement(Target target, int round, LoadResult result, double proxyCpuSeconds,
        long proxyRssBytes, double brokerCpuSeconds, String failure) {

    public static Measurement failed(Target target, int round, String failure) {
        return new Measurement(target, round, null, 0, 0, 0, failure);
    }

    public boolean succeeded() {
        return result != null;
    }
}
