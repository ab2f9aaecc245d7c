package io.leasehold.broker.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.Arrays;

/**
 * Where each batch of one segment file starts, learnt by walking batch headers once and
 * extended as more of the file is committed. Segment files are append-only under a name that
 * is never reused for different committed data, so what was learnt stays true.
 */
final class BatchPositions {

    private long[] baseOffsets = new long[64];
    private long[] positions = new long[64];
    private int count;
    private long scannedBytes;

    /** Walks the headers of batches between what is known and {@code committedBytes}. */
    synchronized void scan(FileChannel channel, long committedBytes, String fileName) throws IOException {
        ByteBuffer header = ByteBuffer.allocate(RecordBatches.LOG_OVERHEAD);
        while (scannedBytes < committedBytes) {
            header.clear();
            while (header.hasRemaining()) {
                if (channel.read(header, scannedBytes + header.position()) < 0) {
                    throw new IOException("segment " + fileName + " ends at byte " + (scannedBytes + header.position())
                            + " but the index says " + committedBytes + " bytes are committed");
                }
            }
            header.flip();
            int size = RecordBatches.headerBatchSize(header);
            if (size <= RecordBatches.LOG_OVERHEAD || scannedBytes + size > committedBytes) {
                throw new IOException("segment " + fileName + " has a malformed batch header at byte " + scannedBytes);
            }
            add(RecordBatches.headerBaseOffset(header), scannedBytes);
            scannedBytes += size;
        }
    }

    /** Position of the batch holding {@code offset}: the last batch starting at or before it. */
    synchronized long positionOf(long offset) {
        int index = Arrays.binarySearch(baseOffsets, 0, count, offset);
        if (index >= 0) {
            return positions[index];
        }
        int before = -index - 2;
        return before < 0 ? 0 : positions[before];
    }

    /**
     * The end of the last whole batch that starts at or after {@code from} (a batch start) and
     * ends by {@code limit} within the committed bytes; at least one batch is included even if it is larger than that.
     */
    synchronized long readEnd(long from, long limit, long committedBytes) {
        int index = Arrays.binarySearch(positions, 0, count, from);
        if (index < 0) {
            index = -index - 1;
        }
        long end = from;
        for (; index < count; index++) {
            long batchEnd = index + 1 < count ? positions[index + 1] : scannedBytes;
            if (batchEnd > committedBytes || (batchEnd > limit && end > from)) {
                break;
            }
            end = batchEnd;
        }
        return end;
    }

    private void add(long baseOffset, long position) {
        if (count == baseOffsets.length) {
            baseOffsets = Arrays.copyOf(baseOffsets, count * 2);
            positions = Arrays.copyOf(positions, count * 2);
        }
        baseOffsets[count] = baseOffset;
        positions[count] = position;
        count++;
    }
}
