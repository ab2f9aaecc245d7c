package io.leasehold.broker.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;

class RecordBatchesTest {

    @Test
    void assignOffsetsRewritesEveryBatchToFollowOnFromTheFirstOffset() {
        ByteBuffer buffer = concat(
                MemoryRecords.withRecords(Compression.NONE, record("a"), record("b")),
                MemoryRecords.withRecords(Compression.NONE, record("c"), record("d"), record("e")));

        long next = RecordBatches.assignOffsets(buffer, 40);

        assertThat(next).isEqualTo(45);
        List<Long> offsets = new ArrayList<>();
        for (MutableRecordBatch batch : MemoryRecords.readableRecords(buffer).batches()) {
            batch.ensureValid();
            batch.forEach(record -> offsets.add(record.offset()));
        }
        assertThat(offsets).containsExactly(40L, 41L, 42L, 43L, 44L);
    }

    @Test
    void validateReportsProducerFieldsAndRecordCounts() {
        MemoryRecords records = MemoryRecords.withIdempotentRecords(Compression.NONE, 77L, (short) 2, 10,
                record("x"), record("y"), record("z"));

        RecordBatches.ValidatedRecords validated = RecordBatches.validate(records);

        assertThat(validated.recordCount()).isEqualTo(3);
        assertThat(validated.batches()).singleElement().satisfies(batch -> {
            assertThat(batch.producerId()).isEqualTo(77L);
            assertThat(batch.producerEpoch()).isEqualTo((short) 2);
            assertThat(batch.baseSequence()).isEqualTo(10);
            assertThat(batch.lastSequence()).isEqualTo(12);
        });
    }

    @Test
    void validateRejectsOldMagicTransactionsCorruptionAndTruncation() {
        assertThatThrownBy(() -> RecordBatches.validate(MemoryRecords.withRecords(RecordBatch.MAGIC_VALUE_V1,
                Compression.NONE, record("old")))).isInstanceOf(InvalidRecordException.class).hasMessageContaining("magic 1");
        assertThatThrownBy(() -> RecordBatches.validate(MemoryRecords.withTransactionalRecords(Compression.NONE, 1L,
                (short) 0, 0, record("t")))).isInstanceOf(InvalidRecordException.class).hasMessageContaining("transactional");

        ByteBuffer corrupt = MemoryRecords.withRecords(Compression.NONE, record("payload")).buffer();
        corrupt.put(corrupt.limit() - 1, (byte) (corrupt.get(corrupt.limit() - 1) ^ 0x55));
        assertThatThrownBy(() -> RecordBatches.validate(MemoryRecords.readableRecords(corrupt)))
                .isInstanceOf(CorruptRecordException.class).hasMessageStartingWith("batch at byte 0: ");

        ByteBuffer whole = MemoryRecords.withRecords(Compression.NONE, record("one")).buffer();
        ByteBuffer truncated = ByteBuffer.allocate(whole.remaining() + 30).put(whole.duplicate())
                .put(whole.duplicate().limit(30));
        truncated.flip();
        assertThatThrownBy(() -> RecordBatches.validate(MemoryRecords.readableRecords(truncated)))
                .isInstanceOf(InvalidRecordException.class).hasMessageContaining("truncated");
    }

    static SimpleRecord record(String value) {
        return new SimpleRecord(1_000L, value.getBytes());
    }

    static ByteBuffer concat(MemoryRecords... parts) {
        int size = 0;
        for (MemoryRecords part : parts) {
            size += part.sizeInBytes();
        }
        ByteBuffer buffer = ByteBuffer.allocate(size);
        for (MemoryRecords part : parts) {
            buffer.put(part.buffer().duplicate());
        }
        buffer.flip();
        return buffer;
    }
}
