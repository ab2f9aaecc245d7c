package io.leasehold.broker.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Appends record batches to one segment file owned by one writer. A new file replaces any
 * leftover of the same name: such a leftover can only hold bytes that were never committed.
 */
public final class SegmentAppender implements AutoCloseable {

    private final Path path;
    private final long baseOffset;
    private final FileChannel channel;
    private long size;

    private SegmentAppender(Path path, long baseOffset, FileChannel channel) {
        this.path = path;
        this.baseOffset = baseOffset;
        this.channel = channel;
    }

    public static SegmentAppender create(Path directory, long baseOffset, String writerTag) throws IOException {
        Files.createDirectories(directory);
        Path path = directory.resolve(SegmentFiles.segmentFileName(baseOffset, writerTag));
        FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING);
        return new SegmentAppender(path, baseOffset, channel);
    }

    /** Writes the whole buffer at the end of the file; returns the new size. */
    public long append(ByteBuffer batches) throws IOException {
        ByteBuffer source = batches.duplicate();
        while (source.hasRemaining()) {
            size += channel.write(source, size);
        }
        return size;
    }

    public String fileName() {
        return path.getFileName().toString();
    }

    public long baseOffset() {
        return baseOffset;
    }

    public long size() {
        return size;
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
