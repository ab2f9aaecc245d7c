package io.leasehold.routing.bench;

import io.etcd.jetcd.Client;
import io.leasehold.routing.keys.KeySchema;
import io.leasehold.routing.snapshot.Ownership;
import io.leasehold.routing.snapshot.PartitionId;
import io.leasehold.routing.snapshot.RoutingSnapshot;
import io.leasehold.routing.watch.OwnershipWatcher;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;

/**
 * The "other process" of the routing table benchmark, run by {@link RoutingTableBenchmark} in its
 * own JVM with a small heap. It loads the ownership table like a proxy would, reports load time,
 * retained heap and lookup cost, then reports each {@code bench-propagation/N} partition the
 * moment its snapshot shows an owner. All output is one line per fact on stdout.
 *
 * <p>Arguments: etcd endpoint, key prefix, number of loads to time.
 */
public final class ObserverProcess {

    static final String PROPAGATION_TOPIC = "bench-propagation";

    private ObserverProcess() {
    }

    public static void main(String[] args) throws Exception {
        PrintStream out = System.out;
        String endpoint = args[0];
        KeySchema keys = new KeySchema(args[1]);
        int loads = Integer.parseInt(args[2]);
        try (Client client = Client.builder().endpoints(endpoint).build()) {
            // Touch the client once so its own threads and buffers count in the baseline, not the table.
            client.getKVClient().get(io.leasehold.routing.etcd.EtcdBytes.of("/")).get();
            long baseline = usedHeapAfterGc();
            OwnershipWatcher watcher = null;
            for (int i = 0; i < loads; i++) {
                if (watcher != null) {
                    watcher.close();
                }
                long started = System.nanoTime();
                watcher = OwnershipWatcher.start(client, keys);
                if (!watcher.awaitLoaded(Duration.ofSeconds(60))) {
                    throw new IllegalStateException("ownership table did not load within 60 s");
                }
                long elapsed = System.nanoTime() - started;
                out.println("LOAD " + i + " " + elapsed + " " + watcher.snapshot().partitionCount());
            }
            long retained = usedHeapAfterGc() - baseline;
            out.println("HEAP " + retained + " " + Runtime.getRuntime().maxMemory());
            measureLookups(watcher.snapshot(), out);
            reportPropagation(watcher, out);
        }
    }

    private static void measureLookups(RoutingSnapshot snapshot, PrintStream out) {
        List<PartitionId> owned = new ArrayList<>(snapshot.partitions().keySet());
        int probes = 1 << 20;
        String[] topics = new String[probes];
        int[] partitions = new int[probes];
        Random random = new Random(42);
        for (int i = 0; i < probes; i++) {
            PartitionId id = owned.get(random.nextInt(owned.size()));
            // Copies, so the lookups hash topic names the way request decoding hands them over.
            topics[i] = new String(id.topic());
            partitions[i] = id.partition();
        }
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        int rounds = 10;
        int perRound = 20_000_000;
        double[] nanosPerLookup = new double[rounds];
        long checksum = 0;
        long allocatedBefore = 0;
        long allocatedAfter = 0;
        for (int round = 0; round < rounds; round++) {
            if (round == rounds - 1) {
                allocatedBefore = threads.getCurrentThreadAllocatedBytes();
            }
            long started = System.nanoTime();
            for (int i = 0; i < perRound; i++) {
                int at = i & (probes - 1);
                Ownership owner = snapshot.partitionOwner(topics[at], partitions[at]);
                checksum += owner == null ? -1 : owner.brokerId();
            }
            nanosPerLookup[round] = (System.nanoTime() - started) / (double) perRound;
            if (round == rounds - 1) {
                allocatedAfter = threads.getCurrentThreadAllocatedBytes();
            }
        }
        double[] measured = Arrays.copyOfRange(nanosPerLookup, 3, rounds);
        Arrays.sort(measured);
        out.printf("LOOKUP %.2f %.2f %.2f %d %d%n", measured[0], measured[measured.length / 2], measured[measured.length - 1],
                allocatedAfter - allocatedBefore, checksum);
    }

    private static void reportPropagation(OwnershipWatcher watcher, PrintStream out) throws InterruptedException {
        int[] next = {0};
        watcher.addListener(snapshot -> {
            while (snapshot.partitionOwner(PROPAGATION_TOPIC, next[0]) != null) {
                out.println("SEEN " + next[0]);
                out.flush();
                next[0]++;
            }
        });
        out.println("READY");
        out.flush();
        // Runs until the benchmark driver closes our stdin.
        CountDownLatch stdinClosed = new CountDownLatch(1);
        Thread reader = new Thread(() -> {
            try {
                while (System.in.read() >= 0) {
                    // Nothing is sent; end of input ends the process.
                }
            } catch (java.io.IOException e) {
                // Driver gone.
            }
            stdinClosed.countDown();
        });
        reader.setDaemon(true);
        reader.start();
        stdinClosed.await();
        watcher.close();
    }

    private static long usedHeapAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
