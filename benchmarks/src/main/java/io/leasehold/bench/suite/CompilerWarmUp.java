package io.leasehold.bench.suite;

import io.leasehold.bench.process.CompilerShare;
import io.leasehold.bench.process.ThreadCpu;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Warms a proxy JVM up until its optimising compiler has settled: runs passes of unmeasured
 * traffic until one pass in which the proxy's C2 compiler threads used less than
 * {@code quietSeconds} of CPU, or until {@code limit} has passed. On a 2-core machine C2 keeps
 * compiling for minutes into a run and takes a quarter to a half of a young proxy's CPU, so
 * rounds measured before it settles measure the compiler as much as the proxy.
 *
 * @param limit        the longest warm-up per proxy; zero for none (the suite's brief warm-up only)
 * @param quietSeconds C2 CPU seconds in one pass below which the compiler counts as settled
 */
public record CompilerWarmUp(Duration limit, double quietSeconds) {

    /** How long each workload runs in a warm-up pass. */
    public static final Duration RUN_PER_WORKLOAD = Duration.ofSeconds(5);

    public CompilerWarmUp {
        if (limit.isNegative() || quietSeconds <= 0) {
            throw new IllegalArgumentException("warm-up limit must be >= 0 and the quiet threshold > 0: " + limit
                    + ", " + quietSeconds);
        }
    }

    /** No compiler warm-up: the suite's brief warm-up only. */
    public static CompilerWarmUp none() {
        return new CompilerWarmUp(Duration.ZERO, 0.1);
    }

    public boolean enabled() {
        return !limit.isZero();
    }

    /**
     * Runs {@code pass} on the process {@code pid} until C2 settles or the limit passes; returns a
     * line saying which, with C2's CPU seconds in each pass.
     */
    public String untilSettled(long pid, Runnable pass) {
        long deadline = System.nanoTime() + limit.toNanos();
        List<Double> c2PerPass = new ArrayList<>();
        boolean settled = false;
        while (!settled && System.nanoTime() < deadline) {
            ThreadCpu before = ThreadCpu.read(pid);
            pass.run();
            double c2 = ThreadCpu.read(pid).since(before).getOrDefault(CompilerShare.C2_THREADS, 0.0);
            c2PerPass.add(c2);
            // NaN: a compiler thread ended during the pass (HotSpot retires idle ones) and took its
            // CPU time with it, so this pass says nothing; the next one will.
            settled = c2 < quietSeconds;
        }
        String perPass = c2PerPass.stream().map(s -> String.format(Locale.ROOT, "%.2f", s))
                .collect(Collectors.joining(", "));
        return (settled ? "C2 settled after " : "C2 NOT settled within " + limit.toSeconds() + " s, ")
                + c2PerPass.size() + " passes; C2 CPU s per pass: " + perPass;
    }
}
