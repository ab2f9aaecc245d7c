package io.leasehold.bench.cluster;

import io.leasehold.routing.testing.LoopbackPorts;
import io.leasehold.testing.JavaCommand;
import io.leasehold.testing.ManagedProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One Apache Kafka KRaft node (the kafka_2.13 artifact on this module's class path) in its own
 * JVM with a fixed heap, on a free loopback port, with a data directory formatted for it. The
 * first node of a cluster is broker and controller (a quorum of one); the others are brokers.
 * {@link #close()} stops it (resuming it first if it is paused) and deletes its directory; its
 * log stays in the log directory.
 */
public final class KafkaNode implements AutoCloseable {

    /** Kafka's own G1 settings, with a heap sized so that three nodes and the proxies share 2 cores. */
    private static final List<String> JVM_OPTIONS = List.of(
            "-Xms384m", "-Xmx384m", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20",
            "-Djava.awt.headless=true", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    private static final List<String> FORMAT_JVM_OPTIONS = List.of(
            "-Xmx256m", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");

    private final int id;
    private final int port;
    private final Path baseDir;
    private final ManagedProcess process;

    private KafkaNode(int id, int port, Path baseDir, ManagedProcess process) {
        this.id = id;
        this.port = port;
        this.baseDir = baseDir;
        this.process = process;
    }

    /** Where a node will listen and how it reaches the controller, before it is started. */
    record Layout(int id, int port, boolean controller, int controllerId, int controllerPort) {

        static Layout of(int id, int controllerId, int controllerPort) {
            return new Layout(id, LoopbackPorts.take(), id == controllerId, controllerId, controllerPort);
        }
    }

    /** Writes the node's configuration into a fresh directory and formats its storage (not yet started). */
    static Prepared prepare(String classpath, Layout layout, String clusterId, Path logDir) {
        Path baseDir;
        try {
            baseDir = Files.createTempDirectory("leasehold-bench-kafka-" + layout.id() + "-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a Kafka data directory", e);
        }
        Path config = writeConfig(baseDir, layout);
        List<String> args = List.of("format", "--cluster-id", clusterId, "--config", config.toString());
        ManagedProcess format = ManagedProcess.start("kafka-storage-format-" + layout.id(),
                new JavaCommand(classpath, FORMAT_JVM_OPTIONS).command("kafka.tools.StorageTool", args),
                logDir, Map.of());
        return new Prepared(layout, baseDir, config, format);
    }

    /** A node whose storage is being formatted; {@link #start} waits for that, then launches it. */
    record Prepared(Layout layout, Path baseDir, Path config, ManagedProcess format) {

        KafkaNode start(String classpath, Path logDir) {
            try (format) {
                if (!format.waitFor(Duration.ofSeconds(90))) {
                    throw new IllegalStateException("kafka-storage format of node " + layout.id()
                            + " did not finish within 90 s; stderr " + format.stderrLog() + ":\n" + format.stderrTail(30));
                }
                int exit = format.exitCode().orElseThrow();
                if (exit != 0) {
                    throw new IllegalStateException("kafka-storage format of node " + layout.id() + " exited with "
                            + exit + "; stderr " + format.stderrLog() + ":\n" + format.stderrTail(30));
                }
            } catch (RuntimeException e) {
                FileTrees.deleteRecursively(baseDir);
                throw e;
            }
            ManagedProcess process = ManagedProcess.start("kafka-" + layout.id(),
                    new JavaCommand(classpath, JVM_OPTIONS).command("kafka.Kafka", List.of(config.toString())),
                    logDir, Map.of());
            return new KafkaNode(layout.id(), layout.port(), baseDir, process);
        }

        void discard() {
            format.close();
            FileTrees.deleteRecursively(baseDir);
        }
    }

    public int id() {
        return id;
    }

    public String host() {
        return "127.0.0.1";
    }

    public int port() {
        return port;
    }

    public String address() {
        return host() + ":" + port;
    }

    public long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    String describeExit() {
        return "Kafka node " + id + " exited during start-up; stderr " + process.stderrLog() + ":\n"
                + process.stderrTail(30);
    }

    /** SIGSTOP: the node freezes, its sockets stay open (a hung owner, not a dead one). */
    public void pause() {
        process.pause();
    }

    /** SIGCONT. */
    public void resume() {
        process.resume();
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            // A stopped JVM would not act on SIGTERM; the kill below works either way, but a
            // resumed node also releases its ports at once.
            process.resume();
        }
        process.close();
        FileTrees.deleteRecursively(baseDir);
    }

    private static Path writeConfig(Path baseDir, Layout layout) {
        List<String> lines = new ArrayList<>(List.of(
                "process.roles=" + (layout.controller() ? "broker,controller" : "broker"),
                "node.id=" + layout.id(),
                "controller.quorum.voters=" + layout.controllerId() + "@127.0.0.1:" + layout.controllerPort(),
                "listeners=PLAINTEXT://127.0.0.1:" + layout.port()
                        + (layout.controller() ? ",CONTROLLER://127.0.0.1:" + layout.controllerPort() : ""),
                "advertised.listeners=PLAINTEXT://127.0.0.1:" + layout.port(),
                "controller.listener.names=CONTROLLER",
                "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                "inter.broker.listener.name=PLAINTEXT",
                "log.dirs=" + baseDir.resolve("data"),
                "num.partitions=1",
                "offsets.topic.replication.factor=1",
                "offsets.topic.num.partitions=3",
                "transaction.state.log.replication.factor=1",
                "transaction.state.log.min.isr=1",
                "share.coordinator.state.topic.replication.factor=1",
                "share.coordinator.state.topic.min.isr=1",
                "group.initial.rebalance.delay.ms=0",
                "log.retention.check.interval.ms=10000",
                "auto.create.topics.enable=false",
                // The owner-stall measurement freezes a broker for 15 s: it must come back as the
                // same leader of its partitions, not fenced by the controller in the meantime.
                "broker.session.timeout.ms=45000",
                ""));
        Path file = baseDir.resolve("server.properties");
        try {
            Files.writeString(file, String.join("\n", lines));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
        return file;
    }
}
