package io.leasehold.bench.kroxylicious;

import io.kroxylicious.proxy.KafkaProxy;
import io.kroxylicious.proxy.config.ConfigParser;
import io.kroxylicious.proxy.config.Configuration;
import io.kroxylicious.proxy.internal.config.Features;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Starts Kroxylicious from a YAML configuration file, the way its own command-line application
 * does (that artifact is not published where this build resolves from): parse the file, start
 * the proxy, then print {@code READY host:port} for the benchmark harness and serve until the
 * process is stopped.
 */
public final class KroxyliciousLauncher {

    private KroxyliciousLauncher() {
    }

    /** {@code args}: the configuration file, then the bootstrap address to announce as ready. */
    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: KroxyliciousLauncher CONFIG.yaml BOOTSTRAP_HOST:PORT");
            System.exit(2);
        }
        ConfigParser parser = new ConfigParser();
        Configuration configuration;
        try (InputStream in = Files.newInputStream(Path.of(args[0]))) {
            configuration = parser.parseConfiguration(in);
        } catch (IOException e) {
            System.err.println("cannot read Kroxylicious configuration " + args[0] + ": " + e);
            System.exit(1);
            return;
        }
        try (KafkaProxy proxy = new KafkaProxy(parser, configuration, Features.defaultFeatures())) {
            proxy.startup();
            System.out.println("READY " + args[1]);
            System.out.flush();
            proxy.block();
        }
    }
}
