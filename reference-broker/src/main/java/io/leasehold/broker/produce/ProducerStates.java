package io.leasehold.broker.produce;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.leasehold.broker.storage.RecordBatches.BatchInfo;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.protocol.Errors;

/**
 * Idempotent-producer state of one partition: per producer id its epoch and its last few
 * batches, to recognise retried batches (answered with their original offset) and sequence
 * gaps. Every epoch's sequences are stored from 0 without gaps; that is what lets a client that
 * hears OUT_OF_ORDER_SEQUENCE_NUMBER safely resend its unacknowledged batches in a new epoch.
 * Persisted with every commit so that a new owner of the partition knows it too. Used only by
 * the partition's writer, one append at a time.
 */
final class ProducerStates {

    /** As many batches as a producer may have in flight (max.in.flight.requests.per.connection). */
    private static final int REMEMBERED_BATCHES = 5;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Map<Long, ProducerEntry> entries = new HashMap<>();
    private final Map<Long, ProducerEntry> touched = new LinkedHashMap<>();

    /** The verdict on one batch. */
    sealed interface Check {
        record Append() implements Check {
        }

        record Duplicate(long firstOffset) implements Check {
        }

        record Reject(Errors error, String message) implements Check {
        }
    }

    private record CachedBatch(int firstSequence, int lastSequence, long firstOffset) {
    }

    private static final class ProducerEntry {
        short epoch;
        final Deque<CachedBatch> batches = new ArrayDeque<>();

        ProducerEntry(short epoch) {
            this.epoch = epoch;
        }
    }

    Check check(BatchInfo batch) {
        if (!batch.isIdempotent()) {
            return new Check.Append();
        }
        ProducerEntry entry = entries.get(batch.producerId());
        if (entry == null) {
            // State is committed with the offsets and never expires, so a producer this partition
            // does not know starts at sequence 0. A later batch that arrives first (its predecessor
            // still in flight to a previous owner) must wait: written now, it would leave a gap that
            // the client repairs by bumping its epoch and resending its unacknowledged batches from
            // sequence 0, this one included, and this one would then be stored twice.
            return batch.baseSequence() == 0 ? new Check.Append()
                    : new Check.Reject(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, "producer " + batch.producerId()
                            + " is new to this partition and must start at sequence 0, sent " + batch.baseSequence());
        }
        if (batch.producerEpoch() < entry.epoch) {
            return new Check.Reject(Errors.INVALID_PRODUCER_EPOCH, "producer " + batch.producerId() + " epoch "
                    + batch.producerEpoch() + " is older than the current epoch " + entry.epoch);
        }
        if (batch.producerEpoch() > entry.epoch) {
            return batch.baseSequence() == 0 ? new Check.Append()
                    : new Check.Reject(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, "producer " + batch.producerId()
                            + " starts new epoch " + batch.producerEpoch() + " at sequence " + batch.baseSequence());
        }
        for (CachedBatch cached : entry.batches) {
            if (cached.firstSequence() == batch.baseSequence() && cached.lastSequence() == batch.lastSequence()) {
                return new Check.Duplicate(cached.firstOffset());
            }
        }
        if (entry.batches.isEmpty()) {
            return new Check.Append();
        }
        int lastStored = entry.batches.peekLast().lastSequence();
        int expected = nextSequence(lastStored);
        if (batch.baseSequence() == expected) {
            return new Check.Append();
        }
        if (batch.baseSequence() <= batch.lastSequence() && batch.lastSequence() <= lastStored) {
            // Sequences of an epoch are stored without gaps from 0, so this retry is stored already,
            // just older than the remembered batches. Refusing it as out of order would make the
            // client bump its epoch and resend it (and everything after it) as new records.
            return new Check.Reject(Errors.DUPLICATE_SEQUENCE_NUMBER, "producer " + batch.producerId() + " resent sequences "
                    + batch.baseSequence() + ".." + batch.lastSequence() + ", stored already (last stored " + lastStored + ")");
        }
        return new Check.Reject(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, "producer " + batch.producerId()
                + " sent sequence " + batch.baseSequence() + ", expected " + expected);
    }

    /** Records an appended batch; it will be persisted with the next commit. */
    void appended(BatchInfo batch, long firstOffset) {
        if (!batch.isIdempotent()) {
            return;
        }
        ProducerEntry entry = entries.computeIfAbsent(batch.producerId(), id -> new ProducerEntry(batch.producerEpoch()));
        if (batch.producerEpoch() != entry.epoch) {
            entry.epoch = batch.producerEpoch();
            entry.batches.clear();
        }
        entry.batches.addLast(new CachedBatch(batch.baseSequence(), batch.lastSequence(), firstOffset));
        while (entry.batches.size() > REMEMBERED_BATCHES) {
            entry.batches.removeFirst();
        }
        touched.put(batch.producerId(), entry);
    }

    /** The JSON values of producers changed since the last call, by producer id. */
    Map<Long, String> drainChanges() {
        Map<Long, String> changes = new LinkedHashMap<>();
        touched.forEach((producerId, entry) -> changes.put(producerId, toJson(entry)));
        touched.clear();
        return changes;
    }

    /** Loads one producer's persisted state. */
    void load(long producerId, String json) {
        try {
            JsonNode node = JSON.readTree(json);
            ProducerEntry entry = new ProducerEntry((short) node.get("epoch").asInt());
            for (JsonNode batch : node.get("batches")) {
                entry.batches.addLast(new CachedBatch(batch.get(0).asInt(), batch.get(1).asInt(), batch.get(2).asLong()));
            }
            entries.put(producerId, entry);
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("stored state of producer " + producerId + " is malformed: " + json, e);
        }
    }

    private static String toJson(ProducerEntry entry) {
        ObjectNode node = JSON.createObjectNode();
        node.put("epoch", entry.epoch);
        ArrayNode batches = node.putArray("batches");
        for (CachedBatch batch : entry.batches) {
            batches.addArray().add(batch.firstSequence()).add(batch.lastSequence()).add(batch.firstOffset());
        }
        return node.toString();
    }

    private static int nextSequence(int sequence) {
        return sequence == Integer.MAX_VALUE ? 0 : sequence + 1;
    }
}
