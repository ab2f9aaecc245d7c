package io.leasehold.bench.cluster;

import io.leasehold.routing.testing.EtcdServer;
import io.leasehold.testing.JavaCommand;
import io.leasehold.testing.ManagedProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Uuid;

/**
 * A real Apache Kafka broker (the kafka_2.13 artifact on this module's class path) in KRaft
 * combined mode, in its own JVM with a fixed heap and a freshly formatted data directory on free
 * loopback ports. {@link #close()} stops it and deletes the directory; its log stays in the log
 * directory given to {@link #start}.
 */
public final class KafkaBroker implements AutoCloseable {

    /** The broker's KRaft node id, which the seeded ownership keys name as every partition's owner. */
    public static final int NODE_ID = 1;

    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    /** A fixed heap and the G1 settings of Kafka's own start script. */
    private static final List<String> JVM_OPTIONS = List.of(
            "-Xms1g", "-Xmx1g", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20",
            "-Djava.awt.headless=true", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    private static final List<String> FORMAT_JVM_OPTIONS = List.of(
            "-Xmx256m", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");

    private final Path baseDir;
    private final int port;
    private final ManagedProcess process;

    private KafkaBroker(Path baseDir, int port, ManagedProcess process) {
        this.baseDir = baseDir;
        this.port = port;
        this.process = process;
    }

    /** Formats a new data directory, starts the broker and waits until it answers an admin client. */
    /** @param classpath a class path holding the kafka_2.13 artifact and its dependencies */
    public static KafkaBroker start(String classpath, Path logDir) {
        Path baseDir;
        try {
            baseDir = Files.createTempDirectory("leasehold-bench-kafka-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a Kafka data directory", e);
        }
        int port = EtcdServer.freePort();
        int controllerPort = EtcdServer.freePort();
        Path config = writeConfig(baseDir, port, controllerPort);
        format(classpath, config, logDir);
        ManagedProcess process = ManagedProcess.start("kafka",
                new JavaCommand(classpath, JVM_OPTIONS).command("kafka.Kafka", List.of(config.toString())),
                logDir, Map.of());
        KafkaBroker broker = new KafkaBroker(baseDir, port, process);
        try {
            broker.awaitServing();
            return broker;
        } catch (RuntimeException e) {
            broker.close();
            throw e;
        }
    }

    public String host() {
        return "127.0.0.1";
    }

    public int port() {
        return port;
    }

    public String bootstrap() {
        return host() + ":" + port;
    }

    public long pid() {
        return process.pid();
    }

    /**
     * Creates a topic with one replica per partition and waits until every partition has a
     * leader. Old segments are deleted early so that a long run at full speed cannot fill the disk.
     */
    public void createTopic(String topic, int partitions) {
        try (Admin admin = admin()) {
            NewTopic newTopic = new NewTopic(topic, partitions, (short) 1).configs(Map.of(
                    "segment.bytes", Integer.toString(64 << 20),
                    "retention.bytes", Long.toString(512L << 20)));
            admin.createTopics(List.of(newTopic)).all().get(60, TimeUnit.SECONDS);
            awaitLeaders(admin, topic);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot create topic " + topic + " on Kafka at " + bootstrap(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topic " + topic, e);
        }
    }

    @Override
    public void close() {
        process.close();
        FileTrees.deleteRecursively(baseDir);
    }

    private void awaitServing() {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("Kafka exited during start-up; stderr " + process.stderrLog()
                        + ":\n" + process.stderrTail(30));
            }
            if (!acceptsConnections()) {
                sleep(200);
                continue;
            }
            try (Admin admin = admin()) {
                if (!admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).isEmpty()) {
                    return;
                }
            } catch (ExecutionException | TimeoutException e) {
                // Not serving yet: the listener is still coming up. Ask again.
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for Kafka", e);
            }
        }
        throw new IllegalStateException("Kafka at " + bootstrap() + " not serving within " + START_TIMEOUT
                + "; stderr " + process.stderrLog() + ":\n" + process.stderrTail(30));
    }

    private static void awaitLeaders(Admin admin, String topic)
            throws InterruptedException, ExecutionException, TimeoutException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            TopicDescription description = admin.describeTopics(List.of(topic)).allTopicNames()
                    .get(10, TimeUnit.SECONDS).get(topic);
            if (description.partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty())) {
                return;
            }
            Thread.sleep(100);
        }
        throw new TimeoutException("partitions of " + topic + " have no leader after 60 s");
    }

    private boolean acceptsConnections() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host(), port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for Kafka", e);
        }
    }

    private Admin admin() {
        Properties properties = new Properties();
        properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        properties.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        properties.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "10000");
        return Admin.create(properties);
    }

    private static Path writeConfig(Path baseDir, int port, int controllerPort) {
        String config = String.join("\n",
                "process.roles=broker,controller",
                "node.id=" + NODE_ID,
                "controller.quorum.voters=" + NODE_ID + "@127.0.0.1:" + controllerPort,
                "listeners=PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort,
                "advertised.listeners=PLAINTEXT://127.0.0.1:" + port,
                "controller.listener.names=CONTROLLER",
                "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                "inter.broker.listener.name=PLAINTEXT",
                "log.dirs=" + baseDir.resolve("data"),
                "num.partitions=1",
                "offsets.topic.replication.factor=1",
                "transaction.state.log.replication.factor=1",
                "transaction.state.log.min.isr=1",
                "share.coordinator.state.topic.replication.factor=1",
                "share.coordinator.state.topic.min.isr=1",
                "group.initial.rebalance.delay.ms=0",
                "log.retention.check.interval.ms=10000",
                "auto.create.topics.enable=false",
                "");
        Path file = baseDir.resolve("server.properties");
        try {
            Files.writeString(file, config);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
        return file;
    }

    /** Runs Kafka's storage tool, which writes the cluster id and bootstrap metadata into the data dir. */
    private static void format(String classpath, Path config, Path logDir) {
        List<String> args = List.of("format", "--cluster-id", Uuid.randomUuid().toString(),
                "--config", config.toString());
        try (ManagedProcess format = ManagedProcess.start("kafka-storage-format",
                new JavaCommand(classpath, FORMAT_JVM_OPTIONS).command("kafka.tools.StorageTool", args),
                logDir, Map.of())) {
            if (!format.waitFor(Duration.ofSeconds(60))) {
                throw new IllegalStateException("kafka-storage format did not finish within 60 s; stderr "
                        + format.stderrLog() + ":\n" + format.stderrTail(30));
            }
            int exit = format.exitCode().orElseThrow();
            if (exit != 0) {
                throw new IllegalStateException("kafka-storage format exited with " + exit + "; stderr "
                        + format.stderrLog() + ":\n" + format.stderrTail(30));
            }
        }
    }
}
