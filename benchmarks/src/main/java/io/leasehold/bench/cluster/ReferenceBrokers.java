package io.leasehold.bench.cluster;

import io.leasehold.bench.process.JavaCommand;
import io.leasehold.bench.process.ManagedProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Several Leasehold reference brokers ({@code io.leasehold.broker.ReferenceBrokerMain}), each in
 * its own JVM, sharing one storage directory and one etcd, with partition leases on: the backend
 * where the proxy's routing, splitting and merging are exercised for real.
 */
public final class ReferenceBrokers implements AutoCloseable {

    private static final String MAIN_CLASS = "io.leasehold.broker.ReferenceBrokerMain";
    private static final List<String> JVM_OPTIONS = List.of(
            "-Xmx512m", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");

    private final Path baseDir;
    private final List<ManagedProcess> processes;
    private final List<String> addresses;

    private ReferenceBrokers(Path baseDir, List<ManagedProcess> processes, List<String> addresses) {
        this.baseDir = baseDir;
        this.processes = processes;
        this.addresses = addresses;
    }

    /** Starts {@code count} brokers with ids 1..count and waits until each prints {@code READY}. */
    public static ReferenceBrokers start(JavaCommand java, PortAllocator ports, String etcdEndpoint, int count,
            Path logDir) {
        Path baseDir;
        try {
            baseDir = Files.createTempDirectory("leasehold-bench-reference-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a reference broker directory", e);
        }
        Path storage = baseDir.resolve("storage");
        List<ManagedProcess> processes = new ArrayList<>();
        List<String> addresses = new ArrayList<>();
        ReferenceBrokers brokers = new ReferenceBrokers(baseDir, processes, addresses);
        try {
            Files.createDirectories(storage);
            for (int id = 1; id <= count; id++) {
                int port = ports.next();
                processes.add(ManagedProcess.start("reference-broker-" + id,
                        java.command(JVM_OPTIONS, MAIN_CLASS, List.of(
                                "--id", Integer.toString(id), "--host", "127.0.0.1",
                                "--port", Integer.toString(port), "--etcd", etcdEndpoint,
                                "--data-dir", storage.toString())),
                        logDir.resolve("reference-broker-" + id + ".log")));
            }
            for (ManagedProcess process : processes) {
                addresses.add(process.awaitReady(Duration.ofSeconds(60)));
            }
            return brokers;
        } catch (IOException e) {
            brokers.close();
            throw new UncheckedIOException("cannot create " + storage, e);
        } catch (RuntimeException e) {
            brokers.close();
            throw e;
        }
    }

    /** {@code host:port} of every broker, as each announced it. */
    public List<String> addresses() {
        return List.copyOf(addresses);
    }

    public List<Long> pids() {
        return processes.stream().map(ManagedProcess::pid).toList();
    }

    @Override
    public void close() {
        processes.forEach(ManagedProcess::close);
        FileTrees.deleteRecursively(baseDir);
    }
}
