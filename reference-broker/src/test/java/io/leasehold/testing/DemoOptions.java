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
 */
record DemoOptions(Optional<String> proxyClasspath, Path logDir, Optional<Path> pidFile, int records) {

    static final String USAGE = """
            usage: LocalDemo [--proxy-classpath CP | --brokers-only] [--log-dir DIR] [--pid-file FILE] [--records N]
              --proxy-classpath CP  classpath of the proxy (io.leasehold.proxy.Main); two proxies are started
              --brokers-only        no proxies: clients talk to the reference brokers directly
              --log-dir DIR         where process logs go (default: a new temporary directory)
              --pid-file FILE       child process ids are written here, for the calling script's cleanup
              --records N           records per Java producer (default 2000)""";

    static DemoOptions parse(String... args) {
        Optional<String> proxyClasspath = Optional.empty();
        boolean brokersOnly = false;
        Path logDir = null;
        Optional<Path> pidFile = Optional.empty();
        int records = 2000;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--proxy-classpath" -> proxyClasspath = Optional.of(value(args, ++i, "--proxy-classpath"));
                case "--brokers-only" -> brokersOnly = true;
                case "--log-dir" -> logDir = Path.of(value(args, ++i, "--log-dir"));
                case "--pid-file" -> pidFile = Optional.of(Path.of(value(args, ++i, "--pid-file")));
                case "--records" -> records = positive(value(args, ++i, "--records"));
                default -> throw new IllegalArgumentException("unknown flag '" + args[i] + "'");
            }
        }
        if (brokersOnly == proxyClasspath.isPresent()) {
            throw new IllegalArgumentException("give exactly one of --proxy-classpath CP and --brokers-only");
        }
        try {
            return new DemoOptions(proxyClasspath, logDir != null ? logDir : Files.createTempDirectory("leasehold-demo-logs-"),
                    pidFile, records);
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
