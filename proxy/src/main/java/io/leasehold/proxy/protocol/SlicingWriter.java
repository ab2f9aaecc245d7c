package io.leasehold.proxy.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import java.nio.ByteBuffer;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Writable;
import org.apache.kafka.common.record.internal.BaseRecords;

/**
 * Writes a message into a {@link CompositeByteBuf} without copying record sets that came from
 * brokers' frames: each one known to {@link RecordRegions} becomes a component that is a retained
 * slice of its frame, and everything else (the fields the generated classes write around them)
 * is encoded by {@link ByteBufferAccessor} into small pooled chunks, which the composite
 * references between the record sets. The result is written to a socket with a gathering write.
 */
final class SlicingWriter implements Writable {
    /** Room for the fields between two record sets of a typical response (a few dozen bytes a partition). */
    private static final int CHUNK_BYTES = 4096;
    private static final int MAX_VARINT_BYTES = 5;
    private static final int MAX_VARLONG_BYTES = 10;

    private final ByteBufAllocator alloc;
    private final RecordRegions regions;
    private final CompositeByteBuf out;
    private ByteBuf chunk;
    private ByteBuffer view;
    private ByteBufferAccessor fields;
    /** Where the chunk's bytes not yet added to the composite start. */
    private int cut;

    SlicingWriter(ByteBufAllocator alloc, RecordRegions regions) {
        this.alloc = alloc;
        this.regions = regions;
        this.out = alloc.compositeDirectBuffer(Integer.MAX_VALUE);
    }

    @Override
    public void writeRecords(BaseRecords records) {
        ByteBuf slice = regions.retainedSlice(records);
        if (slice == null) {
            Writable.super.writeRecords(records);
            return;
        }
        addWrittenFields();
        out.addComponent(true, slice);
    }

    /** The message written so far (ownership passes to the caller); the writer is done. */
    ByteBuf finish() {
        addWrittenFields();
        releaseChunk();
        return out;
    }

    /** Frees what was written, after a failure. */
    void discard() {
        releaseChunk();
        out.release();
    }

    private void addWrittenFields() {
        if (chunk == null) {
            return;
        }
        int end = view.position();
        if (end > cut) {
            chunk.writerIndex(end);
            out.addComponent(true, chunk.retainedSlice(cut, end - cut));
            cut = end;
        }
    }

    private void releaseChunk() {
        if (chunk != null) {
            chunk.release();
            chunk = null;
        }
    }

    /** The accessor to write the next {@code bytes} with, in a fresh chunk if the current one is full. */
    private Writable room(int bytes) {
        if (chunk == null || view.remaining() < bytes) {
            addWrittenFields();
            releaseChunk();
            chunk = alloc.directBuffer(Math.max(CHUNK_BYTES, bytes));
            view = chunk.nioBuffer(0, chunk.capacity());
            fields = new ByteBufferAccessor(view);
            cut = 0;
        }
        return fields;
    }

    @Override
    public void writeByte(byte val) {
        room(Byte.BYTES).writeByte(val);
    }

    @Override
    public void writeShort(short val) {
        room(Short.BYTES).writeShort(val);
    }

    @Override
    public void writeInt(int val) {
        room(Integer.BYTES).writeInt(val);
    }

    @Override
    public void writeLong(long val) {
        room(Long.BYTES).writeLong(val);
    }

    @Override
    public void writeDouble(double val) {
        room(Double.BYTES).writeDouble(val);
    }

    @Override
    public void writeByteArray(byte[] arr) {
        room(arr.length).writeByteArray(arr);
    }

    @Override
    public void writeUnsignedVarint(int i) {
        room(MAX_VARINT_BYTES).writeUnsignedVarint(i);
    }

    @Override
    public void writeByteBuffer(ByteBuffer buf) {
        room(buf.remaining()).writeByteBuffer(buf);
    }

    @Override
    public void writeVarint(int i) {
        room(MAX_VARINT_BYTES).writeVarint(i);
    }

    @Override
    public void writeVarlong(long i) {
        room(MAX_VARLONG_BYTES).writeVarlong(i);
    }
}
