package io.leasehold.proxy.frontend;

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
 * for the same partition only if it goes to the same broker (same backend connection, so the
 * broker sees them in order); otherwise, and always for a retry, it waits until the earlier
 * ones are finished. Event-loop confined, like the connection it belongs to.
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
     * @param retry true for a retry, which always waits for every earlier request
     */
    public CompletableFuture<Void> blockers(Writer writer, Map<PartitionId, BrokerAddress> planned, boolean retry) {
        List<CompletableFuture<Void>> waits = new ArrayList<>();
        planned.forEach((partition, broker) -> {
            for (Writer earlier : writers.getOrDefault(partition, List.of())) {
                if (earlier == writer) {
                    break;
                }
                if (!earlier.done.isDone() && (retry || !broker.equals(earlier.lastSentTo.get(partition)))) {
                    waits.add(earlier.done);
                }
            }
        });
        return waits.isEmpty() ? null : CompletableFuture.allOf(waits.toArray(CompletableFuture[]::new));
    }

    /** Records where a partition of {@code writer} was just sent. */
    public void sent(Writer writer, PartitionId partition, BrokerAddress broker) {
        writer.lastSentTo.put(partition, broker);
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
