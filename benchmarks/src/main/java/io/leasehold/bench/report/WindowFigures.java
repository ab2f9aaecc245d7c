package io.leasehold.bench.report;

/**
 * One proxy's figures over one window of one run: throughput, proxy CPU seconds (all threads) per
 * GB produced, and the share of that CPU its JIT compilers used (0..1, NaN if unknown).
 */
public record WindowFigures(double megabytesPerSecond, double cpuSecondsPerGigabyte, double compilerShare) {
}
