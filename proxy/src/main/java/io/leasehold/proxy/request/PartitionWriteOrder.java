package io.leasehold.proxy.request;

import io.leasehold.routing.snapshot.BrokerAddress;
import io.leasehold.routing.snapshot.PartitionId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Keeps one client connection's produce batches for a partition in order even when routes
 * change or batches are retried. A request may pipeline behind earlier unfinished requests
 * for the same partition only if all of them go to the partition's known owner (same backend
 * connection, so the owner sees them in order, and an owner that rejects one rejects the rest
 * too). Otherwise — unowned partitions, where the first write makes a broker claim the
 * partition and a second one may race the claim, route changes, and every retry — it waits
 * until the earlier ones are finished. Event-loop confined, like the connection it belongs to.
 */
public final class PartitionWriteOrder {
    private final Map<PartitionId, List<Writer>> writers = new HashMap<>();

    /** One produce request's place in the per-partition order. */
    public static final class Writer {
        private final Collection<PartitionId> partitions;
        private final Map<PartitionId, BrokerAddress> lastSentTo = new HashMap<>();
        private final CompletableFuture<Void> done = new CompletableFuture<>();

        private Writer(Collection<PartitionId> partitions) {
            this.partitions = partitions;
        }
    }

    /** Registers a new request (after every earlier one) for {@code partitions}. */
    public Writer register(Collection<PartitionId> partitions) {
        Writer writer = new Writer(List.copyOf(partitions));
        for (PartitionId p : writer.partitions) {
            writers.computeIfAbsent(p, k -> new ArrayList<>()).add(writer);
        }
        return writer;
    }

    /**
     * What {@code writer} must wait for before sending the planned partitions: null if it may
     * send now.
     *
     * @param planned each partition's intended owner, or null if it is sent to a non-owner
     * @param retry   true for a retry, which always waits for every earlier request
     */
    public CompletableFuture<Void> blockers(Writer writer, Map<PartitionId, BrokerAddress> planned, boolean retry) {
        List<CompletableFuture<Void>> waits = new ArrayList<>();
        for (Map.Entry<PartitionId, BrokerAddress> plan : planned.entrySet()) {
            PartitionId partition = plan.getKey();
            BrokerAddress broker = plan.getValue();
            for (Writer earlier : writers.getOrDefault(partition, List.of())) {
                if (earlier == writer) {
                    break;
                }
                if (!earlier.done.isDone()
                        && (retry || broker == null || !broker.equals(earlier.lastSentTo.get(partition)))) {
                    waits.add(earlier.done);
                }
            }
        }
        return waits.isEmpty() ? null : CompletableFuture.allOf(waits.toArray(CompletableFuture[]::new));
    }

    /** Records that a partition of {@code writer} was just sent to its owner ({@code null}: to a non-owner). */
    public void sent(Writer writer, PartitionId partition, BrokerAddress owner) {
        writer.lastSentTo.put(partition, owner);
    }

    /** The request is finished: later requests no longer wait for it. */
    public void finished(Writer writer) {
        for (PartitionId p : writer.partitions) {
            List<Writer> list = writers.get(p);
            if (list != null) {
                list.remove(writer);
                if (list.isEmpty()) {
                    writers.remove(p);
                }
            }
        }
        writer.done.complete(null);
    }

    /** Partitions with unfinished requests (for tests and diagnostics). */
    int trackedPartitions() {
        return writers.size();
    }
}
