package io.leasehold.proxy.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.protocol.types.ArrayOf;
import org.apache.kafka.common.protocol.types.BoundField;
import org.apache.kafka.common.protocol.types.CompactArrayOf;
import org.apache.kafka.common.protocol.types.Field;
import org.apache.kafka.common.protocol.types.Schema;
import org.apache.kafka.common.protocol.types.TaggedFields;
import org.apache.kafka.common.protocol.types.Type;

/**
 * Follows a Kafka message's fields through its bytes while they pass by in pieces, without
 * assembling or decoding the message: the layout comes from the generated classes' {@link Schema}
 * for the exact version, so no field order is written down here. Record sets and fields nobody
 * asked for are skipped by their length. Reports the fields a caller names, and overwrites named
 * fixed-size integer fields with -1 in place (the bytes are changed before they are forwarded).
 * Field paths are the schema's field names joined by dots, array levels not counted
 * ({@code responses.partitions.error_code}); a tagged field's path is its parent's plus its name.
 *
 * <p>The schemas are compiled once into a {@link Layout}, which every walk of that message
 * version shares; a walker itself walks one message.
 *
 * <p>If the bytes do not fit the schema the walker stops ({@link #broken()}) and reports nothing
 * more; the pieces still pass unchanged.
 */
public final class StreamingFieldWalker {

    /** A message version's fields, compiled from its schemas: immutable, shared by its walks. */
    public static final class Layout {
        private final Node root;

        /**
         * @param parts    the message's parts in wire order (e.g. length prefix, header, body schemas)
         * @param captured paths of fields to report (integers, strings, uuids); others are skipped
         * @param blanked  paths of fixed-size integer fields to overwrite with -1 (and report)
         */
        public Layout(Schema[] parts, Set<String> captured, Set<String> blanked) {
            Node[] nodes = new Node[parts.length];
            for (int i = 0; i < parts.length; i++) {
                nodes[i] = compile(parts[i], "", captured, blanked);
            }
            this.root = new Struct(nodes);
        }
    }

    /** Receives the fields the walker was told to report. */
    public interface Visitor {
        /** A captured or overwritten integer field, as it was on the wire (before any overwrite). */
        void number(String path, long value);

        /** A captured string (UTF-8 bytes, null if null) or uuid (16 bytes) field. */
        void bytes(String path, byte[] value);
    }

    private sealed interface Node permits Fixed, Sized, Array, Struct, Tagged {
    }

    /** Fixed-size field: integers up to 8 bytes, uuids of 16. */
    private record Fixed(String path, int size, boolean blank, boolean capture) implements Node {
    }

    /** Length-prefixed bytes: strings, byte arrays, record sets. */
    private record Sized(String path, boolean compact, int lengthBytes, boolean capture) implements Node {
    }

    private record Array(Node element, boolean compact) implements Node {
    }

    private record Struct(Node[] fields) implements Node {
    }

    /** A tagged-field section; tags the schema knows are walked, others skipped. */
    private record Tagged(Map<Integer, Node> known) implements Node {
    }

    /** What the value being read is for. */
    private enum Purpose { VALUE, LENGTH, COUNT, TAG_COUNT, TAG, TAG_SIZE }

    private enum Read { NONE, FIXED, VARINT, SKIP, CAPTURE }

    /** A struct, array or tagged section being walked; reused for the next one at its depth. */
    private static final class Frame {
        Node node;
        int index;
        long remaining;
        int tag;
    }

    private static final int MAX_CAPTURE = Short.MAX_VALUE;

    private final Visitor visitor;
    /** The frames being walked, outermost first: {@code depth} of them are in use. */
    private Frame[] stack = new Frame[8];
    private int depth;
    private Read read = Read.NONE;
    private Purpose purpose;
    private Node current;
    private int need;
    private long value;
    private int shift;
    private boolean blanking;
    private long skip;
    private byte[] capture;
    private int captured;
    private boolean broken;

    /** Walks one message laid out as {@code layout}, reporting to {@code visitor}. */
    public StreamingFieldWalker(Layout layout, Visitor visitor) {
        this.visitor = visitor;
        push(layout.root, 0);
    }

    /** True once the whole message was walked, or the walk stopped on bytes that do not fit. */
    public boolean finished() {
        return depth == 0 && read == Read.NONE;
    }

    /** True if the bytes did not fit the schema. */
    public boolean broken() {
        return broken;
    }

    /** Walks the next piece's readable bytes (its indices unchanged; blanked fields overwritten). */
    public void accept(ByteBuf piece) {
        int i = piece.readerIndex();
        int end = piece.writerIndex();
        while (!finished()) {
            if (read == Read.NONE) {
                advance();
                continue;
            }
            if (i == end) {
                return;
            }
            if (read == Read.SKIP) {
                int n = (int) Math.min(skip, end - i);
                i += n;
                skip -= n;
                if (skip == 0) {
                    read = Read.NONE;
                }
            } else if (read == Read.FIXED) {
                int n = need;
                if (!blanking && end - i >= n && (n == 1 || n == 2 || n == 4 || n == 8)) {
                    // The rest of the value is in this piece: one read instead of one per byte.
                    long rest = switch (n) {
                        case 1 -> piece.getUnsignedByte(i);
                        case 2 -> piece.getUnsignedShort(i);
                        case 4 -> piece.getUnsignedInt(i);
                        default -> piece.getLong(i);
                    };
                    value = n == Long.BYTES ? rest : (value << (8 * n)) | rest;
                    i += n;
                    need = 0;
                } else {
                    int b = piece.getByte(i) & 0xFF;
                    if (blanking) {
                        piece.setByte(i, 0xFF);
                    }
                    i++;
                    value = (value << 8) | b;
                    need--;
                }
                if (need == 0) {
                    read = Read.NONE;
                    delivered(value);
                }
            } else if (read == Read.VARINT) {
                int b = piece.getByte(i++);
                value |= (long) (b & 0x7F) << shift;
                shift += 7;
                if ((b & 0x80) == 0) {
                    read = Read.NONE;
                    delivered(value);
                } else if (shift > 28) {
                    stop();
                }
            } else {
                int n = Math.min(capture.length - captured, end - i);
                piece.getBytes(i, capture, captured, n);
                i += n;
                captured += n;
                if (captured == capture.length) {
                    read = Read.NONE;
                    report(capture);
                }
            }
        }
    }

    private void advance() {
        if (depth == 0) {
            return;
        }
        Frame top = stack[depth - 1];
        if (top.node instanceof Struct s) {
            if (top.index < s.fields().length) {
                start(s.fields()[top.index++]);
            } else {
                depth--;
            }
        } else if (top.remaining-- <= 0) {
            depth--;
        } else if (top.node instanceof Array a) {
            start(a.element());
        } else {
            readVarint(Purpose.TAG, top.node);
        }
    }

    private void start(Node node) {
        if (node instanceof Fixed f) {
            if (f.blank() || (f.capture() && f.size() <= Long.BYTES)) {
                readFixed(Purpose.VALUE, f, f.size(), f.blank());
            } else if (f.capture()) {
                captureBytes(f, f.size());
            } else {
                skip(f.size());
            }
        } else if (node instanceof Sized s) {
            if (s.compact()) {
                readVarint(Purpose.LENGTH, s);
            } else {
                readFixed(Purpose.LENGTH, s, s.lengthBytes(), false);
            }
        } else if (node instanceof Array a) {
            if (a.compact()) {
                readVarint(Purpose.COUNT, a);
            } else {
                readFixed(Purpose.COUNT, a, Integer.BYTES, false);
            }
        } else if (node instanceof Struct) {
            push(node, 0);
        } else {
            readVarint(Purpose.TAG_COUNT, node);
        }
    }

    private void delivered(long raw) {
        switch (purpose) {
            case VALUE -> {
                Fixed f = (Fixed) current;
                visitor.number(f.path(), signed(raw, f.size()));
            }
            case LENGTH -> {
                Sized s = (Sized) current;
                long length = s.compact() ? raw - 1 : signed(raw, s.lengthBytes());
                if (length < -1 || (s.capture() && length > MAX_CAPTURE)) {
                    stop();
                } else if (length == -1) {
                    if (s.capture()) {
                        visitor.bytes(s.path(), null);
                    }
                } else if (s.capture()) {
                    captureBytes(s, (int) length);
                } else {
                    skip(length);
                }
            }
            case COUNT -> {
                Array a = (Array) current;
                long count = a.compact() ? raw - 1 : signed(raw, Integer.BYTES);
                if (count < -1) {
                    stop();
                } else if (count > 0) {
                    push(a, count);
                }
            }
            case TAG_COUNT -> {
                if (raw > 0) {
                    push(current, raw);
                }
            }
            case TAG -> {
                stack[depth - 1].tag = (int) raw;
                readVarint(Purpose.TAG_SIZE, current);
            }
            case TAG_SIZE -> {
                Node known = ((Tagged) current).known().get(stack[depth - 1].tag);
                if (known == null) {
                    skip(raw);
                } else {
                    start(known);
                }
            }
            default -> throw new IllegalStateException(purpose.name());
        }
    }

    private void push(Node node, long remaining) {
        if (depth == stack.length) {
            stack = Arrays.copyOf(stack, depth * 2);
        }
        Frame frame = stack[depth];
        if (frame == null) {
            frame = new Frame();
            stack[depth] = frame;
        }
        frame.node = node;
        frame.index = 0;
        frame.remaining = remaining;
        frame.tag = 0;
        depth++;
    }

    private void report(byte[] bytes) {
        visitor.bytes(current instanceof Fixed f ? f.path() : ((Sized) current).path(), bytes);
    }

    private void readFixed(Purpose why, Node node, int size, boolean blank) {
        purpose = why;
        current = node;
        need = size;
        value = 0;
        blanking = blank;
        read = Read.FIXED;
    }

    private void readVarint(Purpose why, Node node) {
        purpose = why;
        current = node;
        value = 0;
        shift = 0;
        read = Read.VARINT;
    }

    private void skip(long bytes) {
        skip = bytes;
        read = bytes > 0 ? Read.SKIP : Read.NONE;
    }

    private void captureBytes(Node node, int length) {
        current = node;
        capture = new byte[length];
        captured = 0;
        if (length == 0) {
            report(capture);
        } else {
            read = Read.CAPTURE;
        }
    }

    private void stop() {
        broken = true;
        depth = 0;
        read = Read.NONE;
    }

    private static long signed(long raw, int size) {
        return switch (size) {
            case 1 -> (byte) raw;
            case 2 -> (short) raw;
            case 4 -> (int) raw;
            default -> raw;
        };
    }

    private static Node compile(Type type, String path, Set<String> captured, Set<String> blanked) {
        if (type instanceof Schema schema) {
            BoundField[] fields = schema.fields();
            Node[] nodes = new Node[fields.length];
            for (int i = 0; i < fields.length; i++) {
                Field field = fields[i].def;
                nodes[i] = field.type instanceof TaggedFields tagged
                        ? tagged(tagged, path, captured, blanked)
                        : compile(field.type, join(path, field.name), captured, blanked);
            }
            return new Struct(nodes);
        }
        if (type instanceof ArrayOf array) {
            return new Array(compile(array.arrayElementType().orElseThrow(), path, captured, blanked), false);
        }
        if (type instanceof CompactArrayOf array) {
            return new Array(compile(array.arrayElementType().orElseThrow(), path, captured, blanked), true);
        }
        int size = fixedSize(type);
        if (size > 0) {
            boolean blank = blanked.contains(path);
            if (blank && size > Long.BYTES) {
                throw new IllegalArgumentException("only integer fields can be overwritten, not " + path);
            }
            return new Fixed(path, size, blank, captured.contains(path));
        }
        if (type == Type.STRING || type == Type.NULLABLE_STRING) {
            return new Sized(path, false, Short.BYTES, captured.contains(path));
        }
        if (type == Type.BYTES || type == Type.NULLABLE_BYTES || type == Type.RECORDS || type == Type.NULLABLE_RECORDS) {
            return new Sized(path, false, Integer.BYTES, captured.contains(path));
        }
        if (type == Type.COMPACT_STRING || type == Type.COMPACT_NULLABLE_STRING || type == Type.COMPACT_BYTES
                || type == Type.COMPACT_NULLABLE_BYTES || type == Type.COMPACT_RECORDS
                || type == Type.COMPACT_NULLABLE_RECORDS) {
            return new Sized(path, true, 0, captured.contains(path));
        }
        throw new IllegalArgumentException("no streaming layout for field " + path + " of type " + type);
    }

    private static Node tagged(TaggedFields section, String path, Set<String> captured, Set<String> blanked) {
        Map<Integer, Node> known = new HashMap<>();
        section.fields().forEach((tag, field) -> known.put(tag,
                compile(field.type, join(path, field.name), captured, blanked)));
        return new Tagged(known);
    }

    private static int fixedSize(Type type) {
        if (type == Type.INT8 || type == Type.BOOLEAN) {
            return 1;
        }
        if (type == Type.INT16 || type == Type.UINT16) {
            return 2;
        }
        if (type == Type.INT32 || type == Type.UNSIGNED_INT32) {
            return 4;
        }
        if (type == Type.INT64 || type == Type.FLOAT64) {
            return 8;
        }
        return type == Type.UUID ? 16 : 0;
    }

    private static String join(String path, String name) {
        return path.isEmpty() ? name : path + "." + name;
    }
}
