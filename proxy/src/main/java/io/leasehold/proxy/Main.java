package io.leasehold.proxy;

import io.etcd.jetcd.Client;
import io.leasehold.proxy.authorization.AclsFile;
import io.leasehold.proxy.authorization.AclsFileException;
import io.leasehold.proxy.backend.BrokerCredentials;
import io.leasehold.proxy.config.ConfigException;
import io.leasehold.proxy.config.ConfigLoader;
import io.leasehold.proxy.config.BackendSslContextFactory;
import io.leasehold.proxy.config.EtcdClientFactory;
import io.leasehold.proxy.config.ProxyConfig;
import io.leasehold.proxy.config.ServerSslContextFactory;
import io.leasehold.proxy.security.UsersCommand;
import io.leasehold.proxy.security.UsersFile;
import io.leasehold.proxy.security.UsersFileException;
import io.leasehold.proxy.tls.ProxyTls;
import io.leasehold.proxy.security.JwksException;
import io.leasehold.proxy.security.JwksFile;
import io.leasehold.proxy.security.JwksUrl;
import io.leasehold.proxy.security.VerificationKeys;
import io.leasehold.proxy.tls.ReloadingTls;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Command line entry point: {@code --config FILE} runs the proxy, {@code --validate-config FILE}
 * only checks the file (the secret, TLS and users files it names are read, and reported if
 * unusable, when the proxy starts; so is the ACL file), {@code users add NAME} prints a users-file entry. Prints
 * {@code READY host:port} once serving; SIGTERM drains and exits 0, or {@value #DRAIN_TIMED_OUT}
 * if the drain timed out and cut client connections off.
 */
public final class Main {
    private static final Logger LOG = LoggerFactory.getLogger(Main.class);
    /** A token with an unknown key id fetches the JWKS URL early at most this often. */
    private static final Duration JWKS_EARLY_FETCH_SPACING = Duration.ofSeconds(10);
    private static final String USAGE = "usage: leasehold-proxy --config FILE | --validate-config FILE"
            + " | users add NAME (password on standard input)";
    /** Exit status when SIGTERM's drain ran out of time and cut client connections off. */
    static final int DRAIN_TIMED_OUT = 3;

    private Main() {
    }

    public static void main(String[] args) throws InterruptedException, IOException {
        if (args.length == 3 && args[0].equals("users") && args[1].equals("add")) {
            System.exit(new UsersCommand(System.in, System.out, System.err).add(args[2]));
            return;
        }
        if (args.length != 2 || !(args[0].equals("--config") || args[0].equals("--validate-config"))) {
            System.err.println(USAGE);
            System.exit(2);
            return;
        }
        Path file = Path.of(args[1]);
        ProxyConfig config;
        try {
            config = new ConfigLoader(System.getenv()).load(file);
        } catch (ConfigException e) {
            System.err.println(e.getMessage());
            System.exit(1);
            return;
        }
        if (args[0].equals("--validate-config")) {
            System.out.println("OK " + file);
            return;
        }
        System.exit(run(config, file));
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

    private static int run(ProxyConfig config, Path file) throws InterruptedException {
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
                new ProxyTls(listenerTls, backendTls, etcdExpiries), users, tokenKeys, acls, brokerCredentials);
        InetSocketAddress bound;
        try {
            bound = proxy.start();
        } catch (RuntimeException e) {
            LOG.error("Proxy failed to start: {}", e.getMessage(), e);
            proxy.close();
            return 1;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            LOG.info("Shutdown requested: draining");
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
