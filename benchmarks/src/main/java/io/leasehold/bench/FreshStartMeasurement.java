package io.leasehold.bench;

import io.leasehold.bench.cluster.LaunchedProxy;
import io.leasehold.bench.load.LoadResult;
import io.leasehold.bench.load.ProducerLoad;
import io.leasehold.bench.load.ProducerWorkload;
import io.leasehold.bench.load.Timing;
import io.leasehold.bench.process.CompilerShare;
import io.leasehold.bench.process.ProcessStats;
import io.leasehold.bench.process.ThreadCpu;
import io.leasehold.bench.report.WindowFigures;
import io.leasehold.bench.report.WindowedCpuTable;
import io.leasehold.bench.suite.CompilerWarmUp;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Produce through proxies the way a user meets them after a restart: each proxy is started
 * fresh, measured from its first request for a fixed time under one workload with the JIT
 * compiler counted, and stopped before the next one starts, so each has the broker and the
 * machine to itself; the order rotates each round. The brokers are warmed up first, directly,
 * until their own C2 compilers settle: a broker still compiling slows whichever proxy is measured
 * first (in two A/A runs the first proxy of round 1 came out 1.32 and 1.49 times the same jar's
 * CPU per GB after a fixed 30 s warm-up, the direct rate at its end 99-149 MB/s). The time is
 * cut into consecutive windows (each a separate producer run, so each window's clients connect
 * anew) and every window reports MB/s, proxy CPU s/GB over all threads, and the compiler share of
 * that CPU; "all" covers the whole time.
 */
final class FreshStartMeasurement {

    /** The length of one reported window. */
    static final Duration WINDOW = Duration.ofSeconds(30);
    /** Direct traffic until every broker's C2 used under the quiet threshold in a pass, for at most 3 minutes. */
    private static final CompilerWarmUp BROKER_WARM_UP = new CompilerWarmUp(Duration.ofSeconds(180),
            BenchOptions.QUIET_C2_SECONDS);
    private static final String ALL = "all";

    private final Duration duration;
    private final int rounds;
    private final ProducerWorkload workload;
    private final String topic;
    private final int bufferBytes;
    private final PrintStream out;

    /**
     * @param duration    how long each proxy is measured from its first request
     * @param rounds      how many times each proxy is started and measured
     * @param bufferBytes each producer's {@code buffer.memory}
     */
    FreshStartMeasurement(Duration duration, int rounds, ProducerWorkload workload, String topic, int bufferBytes,
            PrintStream out) {
        this.duration = duration;
        this.rounds = rounds;
        this.workload = workload;
        this.topic = topic;
        this.bufferBytes = bufferBytes;
        this.out = out;
    }

    /**
     * Warms the brokers ({@code brokerPids}) up directly until their compilers settle (so the first
     * proxy does not meet a cold broker), then measures each proxy of {@code starters} (column
     * name → a fresh start) round by round and prints the windowed table with {@code ratios}.
     */
    void run(String brokerBootstrap, List<Long> brokerPids, Map<String, Supplier<LaunchedProxy>> starters,
            List<WindowedCpuTable.Ratio> ratios) {
        out.println("fresh start: " + workload.label() + ", " + duration.toSeconds() + " s per proxy from its first"
                + " request, windows of " + WINDOW.toSeconds() + " s, " + rounds + " round(s)");
        ProducerLoad direct = new ProducerLoad(new Timing(Duration.ZERO, CompilerWarmUp.RUN_PER_WORKLOAD), bufferBytes);
        double[] lastPass = new double[1];
        for (long pid : brokerPids) {
            String settled = BROKER_WARM_UP.untilSettled(pid, () ->
                    lastPass[0] = direct.run(brokerBootstrap, topic, workload).megabytesPerSecond());
            out.printf(Locale.ROOT, "broker warm-up (process %d), direct: %s; last pass %.1f MB/s%n", pid, settled,
                    lastPass[0]);
        }
        List<String> names = new ArrayList<>(starters.keySet());
        WindowedCpuTable table = new WindowedCpuTable(names, ratios);
        for (int round = 1; round <= rounds; round++) {
            for (int i = 0; i < names.size(); i++) {
                String name = names.get((i + round) % names.size());
                out.println("round " + round + " " + name + ": load average " + MachineInfo.loadAverage());
                try (LaunchedProxy proxy = starters.get(name).get()) {
                    measure(proxy, name, round, table);
                }
            }
        }
        out.println();
        out.print(table.render());
    }

    private void measure(LaunchedProxy proxy, String name, int round, WindowedCpuTable table) {
        ProcessStats stats = new ProcessStats(proxy.pid());
        ProcessStats.Sample first = stats.sample();
        ThreadCpu firstThreads = ThreadCpu.read(proxy.pid());
        ProcessStats.Sample previous = first;
        ThreadCpu previousThreads = firstThreads;
        long windowBytes = 0;
        long totalBytes = 0;
        long errors = 0;
        double seconds = 0;
        for (Duration start = Duration.ZERO; start.compareTo(duration) < 0; start = start.plus(WINDOW)) {
            Duration length = WINDOW.compareTo(duration.minus(start)) < 0 ? WINDOW : duration.minus(start);
            LoadResult result = new ProducerLoad(new Timing(Duration.ZERO, length), bufferBytes)
                    .run(proxy.bootstrap(), topic, workload);
            ProcessStats.Sample now = stats.sample();
            ThreadCpu nowThreads = ThreadCpu.read(proxy.pid());
            String window = start.toSeconds() + "-" + start.plus(length).toSeconds() + " s";
            record(table, window, name, round, result.megabytesPerSecond(), result.totalPayloadBytes(),
                    now.cpuSecondsSince(previous), nowThreads.since(previousThreads), result.errors());
            windowBytes += result.payloadBytes();
            totalBytes += result.totalPayloadBytes();
            errors += result.errors();
            seconds += result.seconds();
            previous = now;
            previousThreads = nowThreads;
        }
        record(table, ALL, name, round, windowBytes / seconds / 1e6, totalBytes, previous.cpuSecondsSince(first),
                previousThreads.since(firstThreads), errors);
    }

    private void record(WindowedCpuTable table, String window, String name, int round, double megabytesPerSecond,
            long bytes, double cpuSeconds, Map<String, Double> threadSeconds, long errors) {
        CompilerShare compiler = CompilerShare.of(threadSeconds, cpuSeconds);
        double perGigabyte = cpuSeconds / (bytes / 1e9);
        table.add(window, name, new WindowFigures(megabytesPerSecond, perGigabyte, compiler.share()));
        String compilerText = Double.isNaN(compiler.share()) ? "n/a (a compiler thread ended)"
                : String.format(Locale.ROOT, "%6.2f s (%4.1f %%)", compiler.compilerSeconds(), 100 * compiler.share());
        out.printf(Locale.ROOT, "round %d %-12s %-10s %7.1f MB/s  cpu %6.2f s  %5.2f s/GB  compiler %s  errors %d  %s%n",
                round, name, window, megabytesPerSecond, cpuSeconds, perGigabyte, compilerText, errors,
                ThreadCpu.top(threadSeconds, 5));
    }
}
