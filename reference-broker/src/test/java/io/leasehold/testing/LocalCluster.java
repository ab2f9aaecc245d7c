package io.leasehold.testing;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.leasehold.routing.keys.KeySchema;
import io.leasehold.routing.testing.EtcdServer;
import io.leasehold.routing.testing.LoopbackPorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;

/**
 * A local Leasehold cluster of separate processes for end-to-end tests and the demo: a real
 * etcd, N reference brokers sharing one storage directory, and any number of proxies. Every
 * port is a free loopback port; every process logs to files under {@link #logDir()}.
 * {@link #close()} kills every process (paused ones too) and deletes etcd's and the brokers'
 * data, whether the test passed or not; a JVM shutdown hook does the same if the JVM exits first.
 */
public final class LocalCluster implements AutoCloseable {

    private static final String HOST = "127.0.0.1";

    private final Settings settings;
    private final Path workDir;
    private final Path storageDir;
    private final EtcdServer etcd;
    private final boolean ownsEtcd;
    private final Map<Integer, BrokerProcess> brokers = new TreeMap<>();
    private final Map<Integer, Integer> brokerPorts = new TreeMap<>();
    private final List<ProxyProcess> proxies = new ArrayList<>();
    private final Thread shutdownHook = new Thread(this::destroy, "local-cluster-cleanup");
    private Client etcdClient;

    private LocalCluster(Settings settings, Path workDir, EtcdServer etcd, boolean ownsEtcd) {
        this.settings = settings;
        this.workDir = workDir;
        this.storageDir = workDir.resolve("storage");
        this.etcd = etcd;
        this.ownsEtcd = ownsEtcd;
    }

    /** A builder for a cluster named {@code name} (used for its log directory). */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** The etcd server (a real process). */
    public EtcdServer etcd() {
        return etcd;
    }

    /** The etcd client URL the brokers and proxies use. */
    public String etcdEndpoint() {
        return etcd.endpoint();
    }

    /** The key prefix of the ownership contract. */
    public String prefix() {
        return settings.prefix();
    }

    /** The shared storage directory every broker is given as {@code --data-dir}. */
    public Path storageDir() {
        return storageDir;
    }

    /** Where process logs are written (kept after {@link #close()}). */
    public Path logDir() {
        return settings.logDir();
    }

    /** The broker with this id (started or exited). */
    public BrokerProcess broker(int id) {
        BrokerProcess broker = brokers.get(id);
        if (broker == null) {
            throw new IllegalArgumentException("no broker " + id + " in this cluster; brokers are " + brokers.keySet());
        }
        return broker;
    }

    /** Every broker ever started, by id (the latest process of each). */
    public Collection<BrokerProcess> brokers() {
        return List.copyOf(brokers.values());
    }

    /** Comma-separated addresses of all running brokers. */
    public String bootstrapServers() {
        return brokers.values().stream().filter(BrokerProcess::isAlive).map(BrokerProcess::address)
                .collect(Collectors.joining(","));
    }

    /** Every proxy started. */
    public List<ProxyProcess> proxies() {
        return List.copyOf(proxies);
    }

    /** Comma-separated addresses of all running proxies. */
    public String proxyBootstrapServers() {
        return proxies.stream().filter(ProxyProcess::isAlive).map(ProxyProcess::address).collect(Collectors.joining(","));
    }

    /**
     * Starts broker {@code id} and waits for its READY line. A broker that ran before comes
     * back on its old port, as a restarted pod would keep its address.
     */
    public synchronized BrokerProcess startBroker(int id) {
        launchBroker(id);
        return awaitBroker(id);
    }

    /**
     * Starts a proxy configured with this cluster's etcd and all running brokers as backends,
     * and waits for its READY line.
     */
    public synchronized ProxyProcess startProxy() {
        return startProxy(Map.of());
    }

    /**
     * Like {@link #startProxy()}, with {@code environment} added to the proxy's environment
     * (the proxy's {@code LEASEHOLD_*} overrides of its config file).
     */
    public synchronized ProxyProcess startProxy(Map<String, String> environment) {
        int index = proxies.size() + 1;
        int[] ports = LoopbackPorts.take(2);
        int port = ports[0];
        int adminPort = ports[1];
        Path config = workDir.resolve("proxy-" + index + ".yaml");
        List<String> backends = brokers.values().stream().filter(BrokerProcess::isAlive).map(BrokerProcess::address).toList();
        write(config, new ProxyConfigYaml(HOST, port, adminPort, List.of(etcd.endpoint()), settings.prefix(), backends).render());
        ManagedProcess process = ManagedProcess.start("proxy-" + index,
                settings.proxyCommand().command(ProxyProcess.MAIN_CLASS, List.of("--config", config.toString())),
                settings.logDir(), environment);
        ProxyProcess proxy = new ProxyProcess(index, HOST, port, adminPort, config, process);
        proxies.add(proxy);
        process.awaitReady(settings.startupTimeout());
        return proxy;
    }

    /** Creates a topic through the running brokers with a real admin client and waits for it. */
    public void createTopic(String topic, int partitions) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("could not create topic " + topic + " through " + bootstrapServers(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topic " + topic, e);
        }
    }

    /** Partition to leader id as a real admin client sees it through {@code bootstrap}. */
    public Map<Integer, Integer> leaders(String bootstrap, String topic) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            TopicDescription description = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS)
                    .get(topic);
            Map<Integer, Integer> leaders = new TreeMap<>();
            description.partitions().forEach(info -> leaders.put(info.partition(),
                    info.leader() == null ? -1 : info.leader().id()));
            return leaders;
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("could not describe topic " + topic + " through " + bootstrap, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while describing topic " + topic, e);
        }
    }

    /** The broker id in the partition's lease key, or empty when nobody owns it. */
    public OptionalInt partitionOwner(String topic, int partition) {
        return leaseOwner(new KeySchema(settings.prefix()).partitionLeaseKey(topic, partition));
    }

    /** The broker id in the consumer group's lease key, or empty when nobody coordinates it. */
    public OptionalInt groupOwner(String group) {
        return leaseOwner(new KeySchema(settings.prefix()).groupLeaseKey(group));
    }

    private OptionalInt leaseOwner(String key) {
        try {
            List<KeyValue> kvs = client().getKVClient().get(ByteSequence.from(key, StandardCharsets.UTF_8))
                    .get(10, TimeUnit.SECONDS).getKvs();
            return kvs.isEmpty() ? OptionalInt.empty()
                    : OptionalInt.of(Integer.parseInt(kvs.get(0).getValue().toString(StandardCharsets.UTF_8).trim()));
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("could not read " + key + " from etcd at " + etcd.endpoint(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading " + key, e);
        }
    }

    /** Kills every process, closes the etcd client, stops etcd if this cluster started it, deletes data. */
    @Override
    public void close() {
        destroy();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException alreadyShuttingDown) {
            // The hook is running or about to; it does the same work.
        }
    }

    private synchronized void destroy() {
        List<RuntimeException> failures = new ArrayList<>();
        proxies.forEach(proxy -> closeQuietly(proxy, failures));
        brokers.values().forEach(broker -> closeQuietly(broker, failures));
        if (etcdClient != null) {
            closeQuietly(etcdClient, failures);
            etcdClient = null;
        }
        if (ownsEtcd) {
            closeQuietly(etcd, failures);
        }
        deleteRecursively(workDir);
        if (!failures.isEmpty()) {
            IllegalStateException failure = new IllegalStateException("cluster cleanup failed for some processes");
            failures.forEach(failure::addSuppressed);
            throw failure;
        }
    }

    private void start() {
        Runtime.getRuntime().addShutdownHook(shutdownHook);
        try {
            Files.createDirectories(storageDir);
            Files.createDirectories(settings.logDir());
            for (int id = 1; id <= settings.brokers(); id++) {
                launchBroker(id);
            }
            for (int id = 1; id <= settings.brokers(); id++) {
                awaitBroker(id);
            }
        } catch (IOException e) {
            close();
            throw new UncheckedIOException("could not create the cluster's directories under " + workDir, e);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    private void launchBroker(int id) {
        BrokerProcess existing = brokers.get(id);
        if (existing != null && existing.isAlive()) {
            throw new IllegalStateException("broker " + id + " is already running: " + existing);
        }
        int port = brokerPorts.computeIfAbsent(id, unused -> LoopbackPorts.take());
        List<String> arguments = new ArrayList<>(List.of("--id", Integer.toString(id), "--host", HOST,
                "--port", Integer.toString(port), "--etcd", etcd.endpoint(), "--data-dir", storageDir.toString(),
                "--prefix", settings.prefix(), "--lease-ttl", seconds(settings.leaseTtl()), "--ownership", settings.ownership()));
        arguments.addAll(settings.extraBrokerArguments());
        arguments.addAll(settings.brokerArguments().getOrDefault(id, List.of()));
        String name = existing == null ? "broker-" + id : "broker-" + id + "-" + System.currentTimeMillis();
        ManagedProcess process = ManagedProcess.start(name, settings.brokerCommand().command(BrokerProcess.MAIN_CLASS, arguments),
                settings.logDir(), Map.of());
        brokers.put(id, new BrokerProcess(id, HOST, port, process));
    }

    private BrokerProcess awaitBroker(int id) {
        BrokerProcess broker = brokers.get(id);
        broker.process().awaitReady(settings.startupTimeout());
        return broker;
    }

    private synchronized Client client() {
        if (etcdClient == null) {
            etcdClient = Client.builder().endpoints(etcd.endpoint()).build();
        }
        return etcdClient;
    }

    private static String seconds(Duration ttl) {
        if (ttl.toMillis() % 1000 != 0 || ttl.getSeconds() < 1) {
            throw new IllegalArgumentException("etcd lease TTLs are whole seconds, got " + ttl);
        }
        return ttl.getSeconds() + "s";
    }

    private static void closeQuietly(AutoCloseable closeable, List<RuntimeException> failures) {
        try {
            closeable.close();
        } catch (Exception e) {
            failures.add(new IllegalStateException("could not close " + closeable, e));
        }
    }

    private static void write(Path file, String text) {
        try {
            Files.writeString(file, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("could not write " + file, e);
        }
    }

    private static void deleteRecursively(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException("could not delete " + root, e);
        }
    }

    /** What a cluster is made of, fixed when it starts. */
    private record Settings(int brokers, Duration leaseTtl, String ownership, String prefix, JavaCommand brokerCommand,
                            JavaCommand proxyCommand, Path logDir, Duration startupTimeout,
                            List<String> extraBrokerArguments, Map<Integer, List<String>> brokerArguments) {
    }

    /** Configures and starts a {@link LocalCluster}; the defaults suit a bounded end-to-end test. */
    public static final class Builder {
        private final String name;
        private int brokers = 3;
        private Duration leaseTtl = Duration.ofSeconds(3);
        private String ownership = "lease";
        private String prefix = KeySchema.DEFAULT_PREFIX;
        private JavaCommand brokerCommand = JavaCommand.ofCurrentClasspath();
        private JavaCommand proxyCommand = JavaCommand.ofCurrentClasspath();
        private Path logDir;
        private Duration startupTimeout = Duration.ofSeconds(60);
        private List<String> extraBrokerArguments = List.of();
        private final Map<Integer, List<String>> brokerArguments = new HashMap<>();
        private EtcdServer etcd;

        private Builder(String name) {
            this.name = name;
        }

        /** Number of brokers started at once (ids 1..n); 0 starts none. */
        public Builder brokers(int count) { this.brokers = count; return this; }
        /** {@code --lease-ttl}, whole seconds. */
        public Builder leaseTtl(Duration ttl) { this.leaseTtl = ttl; return this; }
        /** {@code --ownership lease} (default) or {@code none} (the legacy, overlapping behaviour). */
        public Builder ownership(String mode) { this.ownership = mode; return this; }
        /** {@code --prefix} of the etcd keys. */
        public Builder prefix(String keyPrefix) { this.prefix = keyPrefix; return this; }
        /** How broker JVMs are launched (classpath, heap). */
        public Builder brokerCommand(JavaCommand command) { this.brokerCommand = command; return this; }
        /** How proxy JVMs are launched; the classpath must contain the proxy. */
        public Builder proxyCommand(JavaCommand command) { this.proxyCommand = command; return this; }
        /** Where logs go; default {@code target/leasehold-logs/<name>-<time>}. */
        public Builder logDir(Path dir) { this.logDir = dir; return this; }
        /** Bound on each process's wait for READY. */
        public Builder startupTimeout(Duration timeout) { this.startupTimeout = timeout; return this; }
        /** Extra flags for every broker. */
        public Builder extraBrokerArguments(List<String> arguments) { this.extraBrokerArguments = List.copyOf(arguments); return this; }
        /** Extra flags for broker {@code id} only, after those for every broker (say, a mixed {@code --layout}). */
        public Builder brokerArguments(int id, List<String> arguments) { brokerArguments.put(id, List.copyOf(arguments)); return this; }
        /** Use this etcd instead of starting one (the caller then stops it). */
        public Builder etcd(EtcdServer server) { this.etcd = server; return this; }

        /** Starts etcd (unless given) and the brokers; on any failure everything started is cleaned up. */
        public LocalCluster start() {
            Path logs = logDir != null ? logDir : Path.of("target", "leasehold-logs",
                    name + "-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("HHmmss-SSS"))).toAbsolutePath();
            Settings settings = new Settings(brokers, leaseTtl, ownership, prefix, brokerCommand, proxyCommand, logs,
                    startupTimeout, extraBrokerArguments, Map.copyOf(brokerArguments));
            boolean ownsEtcd = etcd == null;
            EtcdServer server = ownsEtcd ? EtcdServer.start() : etcd;
            Path workDir;
            try {
                workDir = Files.createTempDirectory("leasehold-cluster-");
            } catch (IOException e) {
                if (ownsEtcd) {
                    server.close();
                }
                throw new UncheckedIOException("could not create a temporary directory for the cluster", e);
            }
            LocalCluster cluster = new LocalCluster(settings, workDir, server, ownsEtcd);
            cluster.start();
            return cluster;
        }
    }
}
