package io.leasehold.broker.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Reads committed record batches of a partition from the shared directory, guided by the
 * segment index from etcd: never past a segment's committed length, always whole batches.
 */
public final class SegmentReader {

    private final ConcurrentMap<Path, BatchPositions> positions = new ConcurrentHashMap<>();

    /**
     * Whole batches from the one holding {@code fetchOffset} on, about {@code maxBytes} of them
     * (at least one batch if any data exists at that offset).
     */
    public ByteBuffer read(Path partitionDir, PartitionIndex index, long fetchOffset, int maxBytes) throws IOException {
        ByteBuffer result = null;
        long wanted = fetchOffset;
        for (SegmentRef segment : index.segments()) {
            if (!segment.contains(wanted)) {
                continue;
            }
            int budget = result == null ? maxBytes : maxBytes - result.position();
            if (budget <= 0) {
                break;
            }
            ByteBuffer chunk = readSegment(partitionDir.resolve(segment.file()), segment, wanted, budget);
            if (chunk.remaining() == 0) {
                break;
            }
            result = append(result, chunk);
            wanted = segment.nextOffset();
        }
        if (result == null) {
            return ByteBuffer.allocate(0);
        }
        result.flip();
        return result;
    }

    /** The offset of the first record with a timestamp at or after {@code timestamp}, if any. */
    public Optional<RecordBatches.TimestampedOffset> offsetForTimestamp(Path partitionDir, PartitionIndex index, long timestamp) throws IOException {
        for (SegmentRef segment : index.segments()) {
            ByteBuffer whole = readSegment(partitionDir.resolve(segment.file()), segment, segment.baseOffset(),
                    (int) Math.min(Integer.MAX_VALUE, segment.bytes()));
            Optional<RecordBatches.TimestampedOffset> found = RecordBatches.firstOffsetAtOrAfter(whole, timestamp);
            if (found.isPresent()) {
                return found;
            }
        }
        return Optional.empty();
    }

    /** Forgets what was learnt about files under a directory that is being deleted. */
    public void forget(Path directory) {
        positions.keySet().removeIf(path -> path.startsWith(directory));
    }

    private ByteBuffer readSegment(Path file, SegmentRef segment, long fromOffset, int budget) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            BatchPositions batches = positions.computeIfAbsent(file, path -> new BatchPositions());
            batches.scan(channel, segment.bytes(), file.getFileName().toString());
            long start = batches.positionOf(fromOffset);
            long end = batches.readEnd(start, start + budget, segment.bytes());
            ByteBuffer buffer = ByteBuffer.allocate((int) (end - start));
            while (buffer.hasRemaining()) {
                if (channel.read(buffer, start + buffer.position()) < 0) {
                    throw new IOException("segment " + file + " ended before its committed length " + segment.bytes());
                }
            }
            buffer.flip();
            return buffer;
        }
    }

    private static ByteBuffer append(ByteBuffer result, ByteBuffer chunk) {
        if (result == null) {
            ByteBuffer fresh = ByteBuffer.allocate(chunk.remaining());
            return fresh.put(chunk);
        }
        ByteBuffer grown = ByteBuffer.allocate(result.position() + chunk.remaining());
        result.flip();
        return grown.put(result).put(chunk);
    }
}
