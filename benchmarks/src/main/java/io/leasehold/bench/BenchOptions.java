package io.leasehold.bench;

import java.nio.file.Path;
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
 * @param only      "produce", "consume" or "stall" to measure one part only (e.g. to profile it), or "all"
 */
public record BenchOptions(boolean quick, List<String> backends, Path outDir, boolean jmh, boolean load, Path logDir,
        boolean profile, String only) {

    static final String USAGE = "usage: BenchMain [--quick] [--backend kafka|reference|all] [--out DIR]"
            + " [--logs DIR] [--no-jmh] [--jmh-only] [--profile] [--only produce|consume|stall]"
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
                    case "produce", "consume", "stall" -> args[i];
                    default -> throw new IllegalArgumentException("--only must be produce, consume or stall, was "
                            + args[i]);
                };
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
        return new BenchOptions(quick, backends, outDir, jmh, load, logDir, profile, only);
    }

    /** The argument after a flag; throws IllegalArgumentException when there is none. */
    static String value(String[] args, int index, String flag) {
        if (index >= args.length) {
            throw new IllegalArgumentException(flag + " needs a value");
        }
        return args[index];
    }
}
