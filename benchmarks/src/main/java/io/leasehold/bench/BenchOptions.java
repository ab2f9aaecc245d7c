package io.leasehold.bench;

import io.leasehold.bench.suite.CompilerWarmUp;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Command-line options of {@link BenchMain}.
 *
 * @param quick     a smoke run of under 3 minutes (the Kafka backend, no JMH, unless asked), not a measurement
 * @param backends  "kafka", "reference" or both
 * @param outDir    where results.md, the raw CSV and the chart go
 * @param jmh       whether to run the JMH microbenchmarks
 * @param load      whether to run the proxy-versus-direct load benchmark
 * @param logDir    where the logs of every launched process are kept after the run
 * @param profile   record the proxy with Java Flight Recorder and add its hot methods to the report
 * @param only      "produce", "acks-all" (the acks=all produce cases), "consume" or "stall" to measure one
 *                  part only (e.g. to profile it), or "all"
 * @param tuning    the plan's rounds, measured window and produce cases as changed on the command line
 * @param warmUp    the compiler warm-up of each proxy before the produce rounds
 */
public record BenchOptions(boolean quick, List<String> backends, Path outDir, boolean jmh, boolean load, Path logDir,
        boolean profile, String only, PlanTuning tuning, CompilerWarmUp warmUp) {

    /**
     * C2 CPU in one warm-up pass (each produce case for 5 s) below which a proxy counts as warm:
     * a settled proxy's C2 uses well under this, one still compiling the hot path several times it.
     */
    static final double QUIET_C2_SECONDS = 0.1;

    static final String USAGE = "usage: BenchMain [--quick] [--backend kafka|reference|all] [--out DIR]"
            + " [--logs DIR] [--no-jmh] [--jmh-only] [--profile] [--only produce|acks-all|consume|stall]"
            + " [--rounds N] [--window SECONDS] [--warm-up SECONDS] [--case TEXT]"
            + " (--quick alone: the Kafka backend only, no JMH)";

    /** Parses arguments; throws IllegalArgumentException naming the bad argument. */
    public static BenchOptions parse(String[] args) {
        boolean quick = false;
        List<String> backends = null;
        Path outDir = Path.of("docs", "benchmarks");
        Path logDir = Path.of("benchmarks", "target", "bench-logs");
        Boolean jmh = null;
        boolean load = true;
        boolean profile = false;
        String only = "all";
        Integer rounds = null;
        Duration window = null;
        String produceCase = null;
        CompilerWarmUp warmUp = CompilerWarmUp.none();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> quick = true;
                case "--no-jmh" -> jmh = false;
                case "--jmh-only" -> load = false;
                case "--profile" -> profile = true;
                case "--backend" -> backends = switch (value(args, ++i, "--backend")) {
                    case "kafka" -> List.of("kafka");
                    case "reference" -> List.of("reference");
                    case "all" -> List.of("kafka", "reference");
                    default -> throw new IllegalArgumentException("--backend must be kafka, reference or all, was "
                            + args[i]);
                };
                case "--only" -> only = switch (value(args, ++i, "--only")) {
                    case "produce", "acks-all", "consume", "stall" -> args[i];
                    default -> throw new IllegalArgumentException("--only must be produce, acks-all, consume or stall,"
                            + " was " + args[i]);
                };
                case "--rounds" -> rounds = positive(value(args, ++i, "--rounds"), "--rounds");
                case "--window" -> window = Duration.ofSeconds(positive(value(args, ++i, "--window"), "--window"));
                case "--warm-up" -> warmUp = new CompilerWarmUp(
                        Duration.ofSeconds(positive(value(args, ++i, "--warm-up"), "--warm-up")), QUIET_C2_SECONDS);
                case "--case" -> produceCase = value(args, ++i, "--case");
                case "--out" -> outDir = Path.of(value(args, ++i, "--out"));
                case "--logs" -> logDir = Path.of(value(args, ++i, "--logs"));
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        // A quick run is a smoke check of the main suite: the Kafka backend, no JMH, unless asked for.
        if (backends == null) {
            backends = quick ? List.of("kafka") : List.of("kafka", "reference");
        }
        if (jmh == null) {
            jmh = !quick || !load;
        }
        return new BenchOptions(quick, backends, outDir, jmh, load, logDir, profile, only,
                new PlanTuning(rounds, window, produceCase), warmUp);
    }

    /** {@code value} as a positive whole number; throws IllegalArgumentException naming {@code flag} otherwise. */
    static int positive(String value, String flag) {
        try {
            int n = Integer.parseInt(value);
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(flag + " must be a positive whole number, was " + value);
    }

    /** The argument after a flag; throws IllegalArgumentException when there is none. */
    static String value(String[] args, int index, String flag) {
        if (index >= args.length) {
            throw new IllegalArgumentException(flag + " needs a value");
        }
        return args[index];
    }
}
