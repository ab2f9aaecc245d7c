package io.leasehold.proxy;

import io.etcd.jetcd.Client;
import io.leasehold.proxy.audit.AuditDestination;
import io.leasehold.proxy.authorization.AclsFile;
import io.leasehold.proxy.authorization.AclsFileException;
import io.leasehold.proxy.backend.BrokerCredentials;
import io.leasehold.proxy.config.BackendSslContextFactory;
import io.leasehold.proxy.config.ConfigException;
import io.leasehold.proxy.config.ConfigLoader;
import io.leasehold.proxy.config.EtcdClientFactory;
import io.leasehold.proxy.config.ProxyConfig;
import io.leasehold.proxy.config.ServerSslContextFactory;
import io.leasehold.proxy.logging.LogOutput;
import io.leasehold.proxy.quotas.QuotasFile;
import io.leasehold.proxy.quotas.QuotasFileException;
import io.leasehold.proxy.security.JwksException;
import io.leasehold.proxy.security.JwksFile;
import io.leasehold.proxy.security.JwksUrl;
import io.leasehold.proxy.security.UsersCommand;
import io.leasehold.proxy.security.UsersFile;
import io.leasehold.proxy.security.UsersFileException;
import io.leasehold.proxy.security.VerificationKeys;
import io.leasehold.proxy.tls.ProxyTls;
import io.leasehold.proxy.tls.ReloadingTls;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * The {@code leasehold-proxy} command line: {@code --config FILE} runs the proxy,
 * {@code validate-config FILE} only checks the file (the secret, TLS, users, ACL and quotas files it names
 * are read, and reported if unusable, when the proxy starts), {@code users add NAME} prints a
 * users-file entry; {@code --help} and {@code --version} say the rest. Exit status 2 is a usage
 * error. Prints {@code READY host:port} once serving; SIGTERM drains and exits 0, or
 * {@value #DRAIN_TIMED_OUT} if the drain timed out and cut client connections off.
 */
@Command(name = "leasehold-proxy", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Partition-aware Kafka-protocol routing proxy: sends each partition's requests to the broker "
                + "that owns it, as etcd says.",
        subcommands = CommandLine.HelpCommand.class,
        footer = {"", "LEASEHOLD_* environment variables override config keys (docs/configuration.md); "
                + "LEASEHOLD_LOG_LEVEL sets the log level.",
                "Exit status: 0 done (or drained after SIGTERM), 1 unusable config or failed start, 2 usage error, "
                        + Main.DRAIN_TIMED_OUT + " drain timed out."})
public final class Main implements Callable<Integer> {
    /** A token with an unknown key id fetches the JWKS URL early at most this often. */
    private static final Duration JWKS_EARLY_FETCH_SPACING = Duration.ofSeconds(10);
    /** Exit status when SIGTERM's drain ran out of time and cut client connections off. */
    static final int DRAIN_TIMED_OUT = 3;

    @Option(names = "--config", paramLabel = "FILE",
            description = "Run the proxy with this config file (YAML).")
    private Path config;

    /** The flag form of {@code validate-config}, which scripts and the chart's tests still use. */
    @Option(names = "--validate-config", paramLabel = "FILE", hidden = true)
    private Path validateOnly;

    @Spec
    private CommandSpec spec;

    private final BuildInfo build;
    private final Map<String, String> environment;

    private Main(BuildInfo build, Map<String, String> environment) {
        this.build = build;
        this.environment = environment;
    }

    public static void main(String[] args) {
        BuildInfo build = BuildInfo.ofThisBuild();
        CommandLine commandLine = new CommandLine(new Main(build, System.getenv()))
                .addSubcommand(new CommandLine(new UsersCommand(System.in, System.out, System.err)));
        commandLine.getCommandSpec().version(build.describe());
        System.exit(commandLine.execute(args));
    }

    /** Runs the proxy with {@code --config}; without it there is nothing to do, which is a usage error. */
    @Override
    public Integer call() throws InterruptedException {
        if (validateOnly != null && config == null) {
            return validateConfig(validateOnly);
        }
        if (config == null || validateOnly != null) {
            throw new ParameterException(spec.commandLine(), config == null
                    ? "Missing --config FILE (or a command)" : "--config and --validate-config do not go together");
        }
        ProxyConfig loaded = load(config);
        return loaded == null ? 1 : run(loaded, config);
    }

    @Command(name = "validate-config", mixinStandardHelpOptions = true,
            description = {"Check a config file and the LEASEHOLD_* environment: prints OK FILE, or every problem "
                    + "and exits 1. The files it names (certificates, keys, secrets) are read when the proxy starts, "
                    + "so this works where they are not mounted."})
    int validateConfig(@Parameters(paramLabel = "FILE", description = "the config file") Path file) {
        if (load(file) == null) {
            return 1;
        }
        spec.commandLine().getOut().println("OK " + file);
        spec.commandLine().getOut().flush();
        return 0;
    }

    /** The validated config, or {@code null} once its problems are printed. */
    private ProxyConfig load(Path file) {
        try {
            return new ConfigLoader(environment).load(file);
        } catch (ConfigException e) {
            System.err.println(e.getMessage());
            return null;
        }
    }

    /** Loads a reloading TLS context, or adds why not to {@code problems} and returns {@code null}. */
    private static ReloadingTls loadTls(String name, List<Path> files, ReloadingTls.Loader loader,
                                        List<String> problems) {
        try {
            return ReloadingTls.load(name, files, loader);
        } catch (ConfigException e) {
            problems.addAll(e.problems());
            return null;
        }
    }

    /** The OAUTHBEARER signing keys from the configured JWKS file or URL, or adds why not to {@code problems}. */
    private static VerificationKeys loadTokenKeys(ProxyConfig.OAuthBearer oauthBearer, List<String> problems) {
        try {
            return oauthBearer.jwksFile() != null ? JwksFile.load(oauthBearer.jwksFile())
                    : JwksUrl.of(oauthBearer.jwksUrl(), oauthBearer.jwksCaFile(), new JwksUrl.Timing(
                            oauthBearer.jwksRefreshInterval(), oauthBearer.jwksFetchTimeout(), JWKS_EARLY_FETCH_SPACING));
        } catch (JwksException e) {
            problems.addAll(e.problems());
            return null;
        }
    }

    private int run(ProxyConfig config, Path file) throws InterruptedException {
        // Before any logger exists: slf4j-simple reads its settings when the first one is made.
        new LogOutput(config.logging()).install();
        Logger log = LoggerFactory.getLogger(Main.class);
        log.info("{} starting with {}", build.describe(), file);
        // The files behind the config (mounted Secrets) are read here, not by --validate-config,
        // which must work where they are not mounted (CI, helm template checks).
        List<String> problems = new ArrayList<>();
        ProxyConfig.Listener listener = config.listener();
        ReloadingTls listenerTls = !listener.tls() ? null : loadTls("Kafka listener",
                Arrays.asList(listener.tlsCertFile(), listener.tlsKeyFile(), listener.tlsCaFile()),
                () -> new ServerSslContextFactory(file.toString()).load(listener), problems);
        ProxyConfig.BackendTls backends = config.backends().tls();
        ReloadingTls backendTls = backends == null ? null : loadTls("Broker connections",
                Arrays.asList(backends.caFile(), backends.certFile(), backends.keyFile()),
                () -> new BackendSslContextFactory(file.toString()).load(backends), problems);
        UsersFile users = null;
        if (config.saslRequired() && config.sasl().usersFile() != null) {
            try {
                users = UsersFile.load(config.sasl().usersFile());
            } catch (UsersFileException e) {
                problems.addAll(e.problems());
            }
        }
        VerificationKeys tokenKeys = null;
        if (config.saslRequired() && config.sasl().oauthbearer() != null) {
            tokenKeys = loadTokenKeys(config.sasl().oauthbearer(), problems);
        }
        BrokerCredentials brokerCredentials = null;
        ProxyConfig.BackendSasl brokerSasl = config.backends().sasl();
        if (brokerSasl != null) {
            try {
                brokerCredentials = BrokerCredentials.load(brokerSasl.username(), brokerSasl.passwordFile());
            } catch (IllegalArgumentException e) {
                problems.add(file + ": " + e.getMessage());
            }
        }
        AclsFile acls = null;
        if (config.authorizes()) {
            try {
                acls = AclsFile.load(config.authorization().aclsFile());
            } catch (AclsFileException e) {
                problems.addAll(e.problems());
            }
        }
        QuotasFile quotas = null;
        if (config.quotas().enabled()) {
            try {
                quotas = QuotasFile.load(config.quotas().file());
            } catch (QuotasFileException e) {
                problems.addAll(e.problems());
            }
        }
        OutputStream auditOut = null;
        if (config.audit().enabled()) {
            try {
                auditOut = AuditDestination.open(config.audit().file());
            } catch (IOException e) {
                problems.add(file + ": audit.file: " + config.audit().file() + " cannot be opened for appending ("
                        + e + ")");
            }
        }
        Client etcd = null;
        Map<String, Instant> etcdExpiries = Map.of();
        try {
            EtcdClientFactory etcdFactory = new EtcdClientFactory(file.toString());
            etcdExpiries = etcdFactory.certificateExpiries(config.etcd());
            etcd = etcdFactory.create(config.etcd());
        } catch (ConfigException e) {
            problems.addAll(e.problems());
        }
        if (!problems.isEmpty()) {
            if (etcd != null) {
                etcd.close();
            }
            if (tokenKeys != null) {
                tokenKeys.close();
            }
            System.err.println(String.join(System.lineSeparator(), problems));
            return 1;
        }
        LeaseholdProxy proxy = new LeaseholdProxy(config, etcd,
                new ProxyTls(listenerTls, backendTls, etcdExpiries), users, tokenKeys, acls, brokerCredentials, build,
                auditOut, quotas);
        InetSocketAddress bound;
        try {
            bound = proxy.start();
        } catch (RuntimeException e) {
            log.error("Proxy failed to start: {}", e.getMessage(), e);
            proxy.close();
            return 1;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            log.info("Shutdown requested: draining");
            boolean drained = false;
            try {
                drained = proxy.drainAndClose();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            // A drained stop is a clean exit, not "killed by SIGTERM" (143); a cut-off one is not clean.
            Runtime.getRuntime().halt(drained ? 0 : DRAIN_TIMED_OUT);
        }, "leasehold-drain"));
        System.out.println("READY " + config.listener().host() + ":" + bound.getPort());
        System.out.flush();
        new CountDownLatch(1).await();
        return 0;
    }
}
