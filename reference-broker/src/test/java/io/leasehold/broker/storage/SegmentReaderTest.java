package io.leasehold.broker.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SegmentReaderTest {

    @TempDir
    Path dir;

    @Test
    void readsWholeBatchesFromTheOneHoldingTheOffsetAndNeverPastTheCommittedLength() throws Exception {
        long[] ends = new long[4];
        String file;
        try (SegmentAppender appender = SegmentAppender.create(dir, 0, "e9")) {
            file = appender.fileName();
            for (int i = 0; i < 4; i++) {
                ByteBuffer batch = MemoryRecords.withRecords(Compression.NONE,
                        RecordBatchesTest.record("r" + (2 * i)), RecordBatchesTest.record("r" + (2 * i + 1))).buffer();
                RecordBatches.assignOffsets(batch, 2L * i);
                ends[i] = appender.append(batch);
            }
        }
        // Only three batches (offsets 0..5) are committed; the fourth was appended by a writer that lost its lease.
        PartitionIndex index = new PartitionIndex(6, List.of(new SegmentRef(file, 0, 6, ends[2])));
        SegmentReader reader = new SegmentReader();

        assertThat(offsets(reader.read(dir, index, 3, 1))).containsExactly(2L, 3L);
        assertThat(offsets(reader.read(dir, index, 2, (int) ends[2]))).containsExactly(2L, 3L, 4L, 5L);
        assertThat(offsets(reader.read(dir, index, 0, Integer.MAX_VALUE))).containsExactly(0L, 1L, 2L, 3L, 4L, 5L);
        assertThat(reader.read(dir, index, 6, 1000).remaining()).isZero();
    }

    @Test
    void continuesIntoTheNextSegmentWhenBytesAreLeft() throws Exception {
        List<SegmentRef> segments = new ArrayList<>();
        for (int owner = 0; owner < 2; owner++) {
            try (SegmentAppender appender = SegmentAppender.create(dir, owner * 2L, "e" + owner)) {
                ByteBuffer batch = MemoryRecords.withRecords(Compression.NONE,
                        RecordBatchesTest.record("a"), RecordBatchesTest.record("b")).buffer();
                RecordBatches.assignOffsets(batch, owner * 2L);
                segments.add(new SegmentRef(appender.fileName(), owner * 2L, owner * 2L + 2, appender.append(batch)));
            }
        }
        PartitionIndex index = new PartitionIndex(4, segments);

        assertThat(offsets(new SegmentReader().read(dir, index, 1, 100_000))).containsExactly(0L, 1L, 2L, 3L);
        assertThat(index.logStartOffset()).isZero();
    }

    private static List<Long> offsets(ByteBuffer buffer) {
        List<Long> offsets = new ArrayList<>();
        for (MutableRecordBatch batch : MemoryRecords.readableRecords(buffer).batches()) {
            batch.ensureValid();
            batch.forEach(record -> offsets.add(record.offset()));
        }
        return offsets;
    }
}
