package io.leasehold.proxy.testing;

import io.leasehold.routing.testing.LoopbackPorts;
import io.leasehold.testing.JavaCommand;
import io.leasehold.testing.ManagedProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;

/**
 * One real Apache Kafka KRaft node (the kafka_2.13 artifact on the test class path) in its own
 * JVM with a 320 MiB heap, whose client listener requires SASL: SCRAM-SHA-512 for the user
 * created while its storage is formatted, and PLAIN for the same user and password. A second,
 * plaintext listener serves the test's own admin client and inter-broker traffic. It is ready for
 * consumer groups when {@link #start} returns. SASL sessions
 * last {@code sessionLifetime} ({@code connections.max.reauth.ms}), after which the broker closes
 * a connection that sends anything but a new authentication. {@link #close()} kills it and
 * deletes its directory; its logs stay in the log directory.
 */
public final class SaslKafkaBroker implements AutoCloseable {
    /** The node id, as etcd's ownership keys name it. */
    public static final int ID = 1;
    private static final List<String> JVM = List.of("-Xms320m", "-Xmx320m", "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1", "-Djava.awt.headless=true", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

    private final Path dir;
    private final int saslPort;
    private final int internalPort;
    private final ManagedProcess process;

    private SaslKafkaBroker(Path dir, int saslPort, int internalPort, ManagedProcess process) {
        this.dir = dir;
        this.saslPort = saslPort;
        this.internalPort = internalPort;
        this.process = process;
    }

    /** Formats, starts and waits until the node serves, with {@code user}/{@code password} known to it. */
    public static SaslKafkaBroker start(String user, String password, Duration sessionLifetime, Path logDir)
            throws IOException {
        return start(user, password, sessionLifetime, logDir, Options.NONE);
    }

    /**
     * As {@link #start}, with the broker authorizing requests by its ACLs (StandardAuthorizer):
     * {@code user} and the plaintext listeners (ANONYMOUS: the test's admin client, the controller)
     * are super users; everyone else needs ACLs, which the test creates through {@link #internalAddress()}.
     */
    public static SaslKafkaBroker startAuthorizing(String user, String password, Duration sessionLifetime,
                                                   Path logDir) throws IOException {
        return start(user, password, sessionLifetime, logDir, new Options(Map.of(), true, List.of("User:" + user)));
    }

    /**
     * As {@link #start(String, String, Duration, Path)}, with {@code options}: more PLAIN users
     * and, optionally, Kafka's {@code StandardAuthorizer} in force.
     */
    public static SaslKafkaBroker start(String user, String password, Duration sessionLifetime, Path logDir,
                                        Options options) throws IOException {
        Path dir = Files.createTempDirectory("leasehold-sasl-kafka-");
        int[] ports = LoopbackPorts.take(3);
        Path config = dir.resolve("server.properties");
        StringBuilder plainUsers = new StringBuilder("org.apache.kafka.common.security.plain.PlainLoginModule required user_"
                + user + "=\"" + password + "\"");
        options.plainUsers().forEach((name, secret) -> plainUsers.append(" user_").append(name).append("=\"")
                .append(secret).append('"'));
        plainUsers.append(';');
        Files.writeString(config, String.join("\n",
                "process.roles=broker,controller",
                "node.id=" + ID,
                "controller.quorum.voters=" + ID + "@127.0.0.1:" + ports[2],
                "listeners=SASL_PLAINTEXT://127.0.0.1:" + ports[0] + ",INTERNAL://127.0.0.1:" + ports[1]
                        + ",CONTROLLER://127.0.0.1:" + ports[2],
                "advertised.listeners=SASL_PLAINTEXT://127.0.0.1:" + ports[0] + ",INTERNAL://127.0.0.1:" + ports[1],
                "listener.security.protocol.map=SASL_PLAINTEXT:SASL_PLAINTEXT,INTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT",
                "inter.broker.listener.name=INTERNAL",
                "controller.listener.names=CONTROLLER",
                "sasl.enabled.mechanisms=SCRAM-SHA-512,PLAIN",
                "listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config="
                        + "org.apache.kafka.common.security.scram.ScramLoginModule required;",
                "listener.name.sasl_plaintext.plain.sasl.jaas.config=" + plainUsers,
                "connections.max.reauth.ms=" + sessionLifetime.toMillis(),
                "log.dirs=" + dir.resolve("data"),
                "num.partitions=1",
                "offsets.topic.replication.factor=1",
                "offsets.topic.num.partitions=1",
                "transaction.state.log.replication.factor=1",
                "transaction.state.log.min.isr=1",
                "share.coordinator.state.topic.replication.factor=1",
                "share.coordinator.state.topic.min.isr=1",
                "group.initial.rebalance.delay.ms=0",
                "auto.create.topics.enable=false",
                options.serverProperties(),
                ""));
        JavaCommand java = JavaCommand.ofCurrentClasspath(JVM);
        try (ManagedProcess format = ManagedProcess.start("kafka-sasl-format", java.command("kafka.tools.StorageTool",
                List.of("format", "--cluster-id", Uuid.randomUuid().toString(), "--config", config.toString(),
                        "--add-scram", "SCRAM-SHA-512=[name=" + user + ",password=" + password + "]")),
                logDir, Map.of())) {
            if (!format.waitFor(Duration.ofSeconds(90)) || format.exitCode().orElse(-1) != 0) {
                deleteRecursively(dir);
                throw new IllegalStateException("kafka-storage format failed; stderr " + format.stderrLog() + ":\n"
                        + format.stderrTail(30));
            }
        }
        ManagedProcess process = ManagedProcess.start("kafka-sasl", java.command("kafka.Kafka",
                List.of(config.toString())), logDir, Map.of());
        SaslKafkaBroker broker = new SaslKafkaBroker(dir, ports[0], ports[1], process);
        try {
            broker.awaitServing();
            return broker;
        } catch (RuntimeException e) {
            broker.close();
            throw e;
        }
    }

    /**
     * What a test adds to the default node: PLAIN users besides the one {@link #start} names, and
     * whether Kafka's own {@code StandardAuthorizer} decides requests, with which super users
     * (the plaintext listeners' {@code User:ANONYMOUS} is always one, so the test's admin client
     * and the controller keep working).
     */
    public record Options(Map<String, String> plainUsers, boolean authorizer, List<String> superUsers) {
        /** Today's node: one user, no authorizer. */
        public static final Options NONE = new Options(Map.of(), false, List.of());

        String serverProperties() {
            if (!authorizer) {
                return "";
            }
            List<String> supers = new ArrayList<>(superUsers);
            supers.add("User:ANONYMOUS");
            return "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer\n"
                    + "super.users=" + String.join(";", supers);
        }
    }

    /** The SASL listener, where the proxy connects. */
    public String saslAddress() {
        return "127.0.0.1:" + saslPort;
    }

    public int saslPort() {
        return saslPort;
    }

    /** The plaintext listener, for the test's own admin client only. */
    public String internalAddress() {
        return "127.0.0.1:" + internalPort;
    }

    /** Its log, to see what it said about connections. */
    public Path stderrLog() {
        return process.stderrLog();
    }

    @Override
    public void close() {
        process.close();
        deleteRecursively(dir);
    }

    private void awaitServing() {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, internalAddress()))) {
            while (System.nanoTime() < deadline) {
                if (!process.isAlive()) {
                    throw new IllegalStateException("Kafka exited during start-up; stderr " + process.stderrLog()
                            + ":\n" + process.stderrTail(30));
                }
                if (accepts(saslPort)) {
                    try {
                        admin.describeCluster().nodes().get(5, TimeUnit.SECONDS);
                        // Asking for a group's coordinator creates __consumer_offsets; until it exists
                        // the broker answers group requests (which the proxy forwards) with
                        // COORDINATOR_NOT_AVAILABLE.
                        admin.listConsumerGroupOffsets("leasehold-warm-up").partitionsToOffsetAndMetadata()
                                .get(60, TimeUnit.SECONDS);
                        return;
                    } catch (ExecutionException | TimeoutException e) {
                        // The listeners are still coming up: ask again.
                    }
                }
                Thread.sleep(200);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for Kafka", e);
        }
        throw new IllegalStateException("Kafka not serving within " + START_TIMEOUT + "; stderr " + process.stderrLog());
    }

    private static boolean accepts(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static void deleteRecursively(Path root) {
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + root, e);
        }
    }
}
