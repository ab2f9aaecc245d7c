package io.leasehold.bench.process;

import java.util.List;
import java.util.Map;

/**
 * How much of a JVM's CPU went to its JIT compilers: the CPU seconds of HotSpot's C1 and C2
 * compiler thread groups (as {@link ThreadCpu} names them) against the whole process's CPU
 * seconds over the same interval. A young proxy's compiler share is the part of its cost that a
 * warmed-up measurement leaves out and that is paid again after every restart.
 *
 * @param compilerSeconds CPU seconds of the compiler threads
 * @param processSeconds  CPU seconds of the whole process, every thread
 */
public record CompilerShare(double compilerSeconds, double processSeconds) {

    /** The thread group of HotSpot's C2 compiler threads ("C2 CompilerThread0" cut to 15 characters by Linux). */
    public static final String C2_THREADS = "C2 CompilerThre";
    /** The thread group of HotSpot's C1 compiler threads. */
    public static final String C1_THREADS = "C1 CompilerThre";
    private static final List<String> COMPILER_THREADS = List.of(C1_THREADS, C2_THREADS);

    /**
     * The compiler share of an interval from the CPU seconds per thread group spent in it
     * ({@link ThreadCpu#since}) and the process's CPU seconds in it ({@link ProcessStats}).
     */
    public static CompilerShare of(Map<String, Double> secondsByThreadGroup, double processSeconds) {
        double compiler = COMPILER_THREADS.stream().mapToDouble(group -> secondsByThreadGroup.getOrDefault(group, 0.0))
                .sum();
        return new CompilerShare(compiler, processSeconds);
    }

    /**
     * Compiler CPU ÷ process CPU, 0..1; NaN when the process used no CPU, or when a compiler thread
     * ended in the interval (HotSpot retires idle ones) and took its CPU time with it: then
     * {@link ThreadCpu#since} gives its group NaN seconds, and the share is unknown.
     */
    public double share() {
        if (processSeconds <= 0 || Double.isNaN(compilerSeconds)) {
            return Double.NaN;
        }
        return compilerSeconds / processSeconds;
    }
}
