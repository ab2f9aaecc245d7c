package io.leasehold.proxy.protocol;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * Reads a message body as {@link ByteBufferAccessor} does, and notes in {@link RecordRegions}
 * where in the frame every non-empty record set lies.
 */
final class RecordNotingReader implements Readable {
    private final ByteBuffer body;
    private final int frameIndexAtZero;
    private final ByteBufferAccessor in;
    private final ByteBuf frame;
    private final RecordRegions regions;

    /**
     * @param body             a view of {@code frame}, positioned at the start of the message
     * @param frameIndexAtZero the frame's index that position 0 of {@code body} shows
     */
    RecordNotingReader(ByteBuffer body, int frameIndexAtZero, ByteBuf frame, RecordRegions regions) {
        this.body = body;
        this.frameIndexAtZero = frameIndexAtZero;
        this.in = new ByteBufferAccessor(body);
        this.frame = frame;
        this.regions = regions;
    }

    @Override
    public MemoryRecords readRecords(int length) {
        int index = frameIndexAtZero + body.position();
        MemoryRecords records = in.readRecords(length);
        if (records != null && length > 0) {
            regions.add(records, frame, index, length);
        }
        return records;
    }

    @Override
    public byte readByte() {
        return in.readByte();
    }

    @Override
    public short readShort() {
        return in.readShort();
    }

    @Override
    public int readInt() {
        return in.readInt();
    }

    @Override
    public long readLong() {
        return in.readLong();
    }

    @Override
    public double readDouble() {
        return in.readDouble();
    }

    @Override
    public byte[] readArray(int length) {
        return in.readArray(length);
    }

    @Override
    public int readUnsignedVarint() {
        return in.readUnsignedVarint();
    }

    @Override
    public ByteBuffer readByteBuffer(int length) {
        return in.readByteBuffer(length);
    }

    @Override
    public int readVarint() {
        return in.readVarint();
    }

    @Override
    public long readVarlong() {
        return in.readVarlong();
    }

    @Override
    public int remaining() {
        return in.remaining();
    }

    @Override
    public Readable slice() {
        return in.slice();
    }
}
