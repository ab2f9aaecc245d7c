package io.leasehold.broker.storage;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.common.utils.internals.CloseableIterator;

/**
 * The one place that touches kafka-clients' record classes ({@code record.internal}, a package
 * that moves between releases): validating produced batches, rewriting their offsets, reading
 * batch boundaries of stored data and finding offsets by timestamp.
 */
public final class RecordBatches {

    /** Bytes of a batch's header that say where it starts and how long it is. */
    public static final int LOG_OVERHEAD = Records.LOG_OVERHEAD;

    private RecordBatches() {
    }

    /**
     * What a producer sent for one partition, checked: magic v2 batches with valid CRCs, not
     * transactional, not control batches.
     *
     * @param buffer  the records, owned by the caller; offsets are later rewritten in place
     * @param batches per batch, its producer fields and record count
     */
    public record ValidatedRecords(ByteBuffer buffer, List<BatchInfo> batches) {

        public int recordCount() {
            return batches.stream().mapToInt(BatchInfo::recordCount).sum();
        }

        public int sizeInBytes() {
            return buffer.remaining();
        }
    }

    /** Producer fields of one batch; {@code producerId} is -1 for non-idempotent producers. */
    public record BatchInfo(long producerId, short producerEpoch, int baseSequence, int lastSequence, int recordCount) {

        public boolean isIdempotent() {
            return producerId != RecordBatch.NO_PRODUCER_ID;
        }
    }

    /**
     * Validates the records of one produced partition.
     *
     * @throws InvalidRecordException saying what is wrong with which batch
     * @throws CorruptRecordException   naming the batch whose checksum does not match
     */
    public static ValidatedRecords validate(BaseRecords records) {
        if (!(records instanceof MemoryRecords memory) || memory.sizeInBytes() == 0) {
            throw new InvalidRecordException("produce request carries no record batches for the partition");
        }
        List<BatchInfo> infos = new ArrayList<>();
        int position = 0;
        try {
            for (MutableRecordBatch batch : memory.batches()) {
                if (batch.magic() != RecordBatch.MAGIC_VALUE_V2) {
                    throw new InvalidRecordException("batch at byte " + position + " has magic " + batch.magic()
                            + "; this broker accepts only magic 2 (Produce v3+)");
                }
                if (batch.isTransactional() || batch.isControlBatch()) {
                    throw new InvalidRecordException("batch at byte " + position
                            + " is transactional; this broker does not support transactions");
                }
                batch.ensureValid();
                int count = (int) (batch.lastOffset() - batch.baseOffset() + 1);
                infos.add(new BatchInfo(batch.producerId(), batch.producerEpoch(), batch.baseSequence(),
                        batch.lastSequence(), count));
                position += batch.sizeInBytes();
            }
        } catch (CorruptRecordException e) {
            throw new CorruptRecordException("batch at byte " + position + ": " + e.getMessage());
        }
        if (position != memory.sizeInBytes()) {
            throw new InvalidRecordException("records end in a truncated batch: " + memory.sizeInBytes()
                    + " bytes given, whole batches cover " + position);
        }
        return new ValidatedRecords(memory.buffer(), infos);
    }

    /**
     * Rewrites the batches' offsets in place so that the first record gets {@code firstOffset};
     * returns the offset after the last record.
     */
    public static long assignOffsets(ByteBuffer buffer, long firstOffset) {
        long next = firstOffset;
        for (MutableRecordBatch batch : MemoryRecords.readableRecords(buffer.duplicate()).batches()) {
            long delta = batch.lastOffset() - batch.baseOffset();
            batch.setLastOffset(next + delta);
            next += delta + 1;
        }
        return next;
    }

    /** The base offset field of the batch whose header starts at the buffer's position. */
    public static long headerBaseOffset(ByteBuffer header) {
        return header.getLong(header.position() + Records.OFFSET_OFFSET);
    }

    /** The total size of the batch whose header starts at the buffer's position. */
    public static int headerBatchSize(ByteBuffer header) {
        return LOG_OVERHEAD + header.getInt(header.position() + Records.SIZE_OFFSET);
    }

    /** Wraps stored bytes (whole batches) for a fetch response. */
    public static BaseRecords readable(ByteBuffer buffer) {
        return MemoryRecords.readableRecords(buffer);
    }

    public static BaseRecords empty() {
        return MemoryRecords.EMPTY;
    }

    /** A record's offset and timestamp. */
    public record TimestampedOffset(long offset, long timestamp) {
    }

    /** The first record at or after {@code timestamp} in these stored batches. */
    public static Optional<TimestampedOffset> firstOffsetAtOrAfter(ByteBuffer stored, long timestamp) {
        for (MutableRecordBatch batch : MemoryRecords.readableRecords(stored).batches()) {
            if (batch.maxTimestamp() < timestamp) {
                continue;
            }
            try (CloseableIterator<Record> records = batch.streamingIterator(BufferSupplier.NO_CACHING)) {
                while (records.hasNext()) {
                    Record record = records.next();
                    if (record.timestamp() >= timestamp) {
                        return Optional.of(new TimestampedOffset(record.offset(), record.timestamp()));
                    }
                }
            }
        }
        return Optional.empty();
    }
}
