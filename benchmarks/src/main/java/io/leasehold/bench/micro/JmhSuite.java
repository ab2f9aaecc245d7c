package io.leasehold.bench.micro;

import java.util.Collection;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/** Runs this module's JMH microbenchmarks (classes named *Benchmark) in a forked JVM and renders their scores as Markdown. */
public final class JmhSuite {

    private final boolean quick;

    public JmhSuite(boolean quick) {
        this.quick = quick;
    }

    public Collection<RunResult> run() {
        Options options = new OptionsBuilder()
                .include("io\\.leasehold\\..*Benchmark")
                .forks(1)
                .warmupIterations(quick ? 1 : 2)
                .warmupTime(TimeValue.milliseconds(quick ? 300 : 1000))
                .measurementIterations(quick ? 1 : 3)
                .measurementTime(TimeValue.milliseconds(quick ? 300 : 1000))
                .jvmArgs("-Xms512m", "-Xmx512m")
                .build();
        try {
            return new Runner(options).run();
        } catch (RunnerException e) {
            throw new IllegalStateException("JMH run failed", e);
        }
    }

    public static String table(Collection<RunResult> results) {
        StringBuilder out = new StringBuilder("| benchmark | parameters | score | error (99.9 %) | unit |\n|---|---|---|---|---|\n");
        for (RunResult run : results) {
            BenchmarkParams params = run.getParams();
            Result<?> primary = run.getPrimaryResult();
            String name = params.getBenchmark().substring(params.getBenchmark().lastIndexOf('.', 
                    params.getBenchmark().lastIndexOf('.') - 1) + 1);
            Map<String, String> values = new TreeMap<>();
            for (String key : params.getParamsKeys()) {
                values.put(key, params.getParam(key));
            }
            out.append("| ").append(name)
                    .append(" | ").append(values.isEmpty() ? "" : values.toString())
                    .append(" | ").append(String.format(Locale.ROOT, "%.3f", primary.getScore()))
                    .append(" | ").append(Double.isNaN(primary.getScoreError()) ? "n/a"
                            : String.format(Locale.ROOT, "± %.3f", primary.getScoreError()))
                    .append(" | ").append(primary.getScoreUnit())
                    .append(" |\n");
        }
        return out.toString();
    }
}
