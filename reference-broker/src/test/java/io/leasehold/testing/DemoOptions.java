package io.leasehold.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Flags of {@link LocalDemo}.
 *
 * @param proxyClasspath classpath containing {@code io.leasehold.proxy.Main}; empty runs without proxies
 * @param records        records per Java producer
 * @param compare        run the before/after comparison instead of the demo
 */
record DemoOptions(Optional<String> proxyClasspath, Path logDir, Optional<Path> pidFile, int records, boolean compare) {

    static final String USAGE = """
            usage: LocalDemo [--proxy-classpath CP | --brokers-only] [--log-dir DIR] [--pid-file FILE] [--records N]
                             [--compare]
              --proxy-classpath CP  classpath of the proxy (io.leasehold.proxy.Main); two proxies are started
              --brokers-only        no proxies: clients talk to the reference brokers directly
              --log-dir DIR         where process logs go (default: a new temporary directory)
              --pid-file FILE       child process ids are written here, for the calling script's cleanup
              --records N           records per Java producer (default 2000)
              --compare             first the bug (brokers with --ownership none, clients following
                                    Metadata while a broker leaves and returns), then the same
                                    workload through Leasehold with leases; needs --proxy-classpath""";

    static DemoOptions parse(String... args) {
        Optional<String> proxyClasspath = Optional.empty();
        boolean brokersOnly = false;
        Path logDir = null;
        Optional<Path> pidFile = Optional.empty();
        int records = 2000;
        boolean compare = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--proxy-classpath" -> proxyClasspath = Optional.of(value(args, ++i, "--proxy-classpath"));
                case "--brokers-only" -> brokersOnly = true;
                case "--log-dir" -> logDir = Path.of(value(args, ++i, "--log-dir"));
                case "--pid-file" -> pidFile = Optional.of(Path.of(value(args, ++i, "--pid-file")));
                case "--records" -> records = positive(value(args, ++i, "--records"));
                case "--compare" -> compare = true;
                default -> throw new IllegalArgumentException("unknown flag '" + args[i] + "'");
            }
        }
        if (brokersOnly == proxyClasspath.isPresent()) {
            throw new IllegalArgumentException("give exactly one of --proxy-classpath CP and --brokers-only");
        }
        if (compare && brokersOnly) {
            throw new IllegalArgumentException("--compare runs the proxies in its second half; it cannot be --brokers-only");
        }
        try {
            return new DemoOptions(proxyClasspath, logDir != null ? logDir : Files.createTempDirectory("leasehold-demo-logs-"),
                    pidFile, records, compare);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot create a temporary log directory: " + e.getMessage());
        }
    }

    private static String value(String[] args, int index, String flag) {
        if (index >= args.length || args[index].startsWith("--")) {
            throw new IllegalArgumentException(flag + " needs a value");
        }
        return args[index];
    }

    private static int positive(String text) {
        try {
            int value = Integer.parseInt(text);
            if (value > 0) {
                return value;
            }
        } catch (NumberFormatException e) {
            // reported below with the flag's name
        }
        throw new IllegalArgumentException("--records: '" + text + "' is not a positive number");
    }
}
