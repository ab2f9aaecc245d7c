package io.leasehold.proxy.exchange;

import io.leasehold.proxy.protocol.StreamingFieldWalker;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.function.IntFunction;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.types.Schema;

/**
 * Reads a partition-keyed response's error codes from its bytes, whole or in pieces, without
 * decoding it: reports each partition's error with its topic, and a non-zero response-level
 * error, to a {@link StreamedAnswer.StreamedErrors}. The fields come from the API's schema
 * (see {@link StreamingFieldWalker}); the walk may also overwrite named integer fields.
 */
public final class PartitionErrorWalker {

    /**
     * Where a response names its topics, partitions and errors, as schema field paths; a path the
     * version lacks is never reported.
     */
    public record Fields(String topicName, String topicId, String partition, String error, String wholeError) {
    }

    /** One response's layouts, compiled once per version: what a walk of one response starts from. */
    public static final class Layouts {
        private final Fields fields;
        private final StreamingFieldWalker.Layout[] byVersion;

        /**
         * @param parts    a version's message parts in wire order (length prefix if it is walked,
         *                 header, body), or null for a version that does not exist
         * @param versions how many versions there are (0 up to this, exclusive)
         * @param blanked  paths of integer fields to overwrite with -1 as they pass
         */
        public Layouts(IntFunction<Schema[]> parts, int versions, Fields fields, Set<String> blanked) {
            this.fields = fields;
            this.byVersion = new StreamingFieldWalker.Layout[versions];
            Set<String> captured = Set.of(fields.topicName(), fields.topicId(), fields.partition(), fields.error(),
                    fields.wholeError());
            for (int v = 0; v < versions; v++) {
                Schema[] schemas = parts.apply(v);
                if (schemas != null) {
                    byVersion[v] = new StreamingFieldWalker.Layout(schemas, captured, blanked);
                }
            }
        }

        /** A walk of one response in {@code version}. */
        public PartitionErrorWalker walker(short version, StreamedAnswer.StreamedErrors errors) {
            return new PartitionErrorWalker(byVersion[version], fields, errors);
        }
    }

    private final Fields fields;
    private final StreamedAnswer.StreamedErrors errors;
    private final StreamingFieldWalker walker;
    private String topicName = "";
    private Uuid topicId = Uuid.ZERO_UUID;
    private int partition;

    private PartitionErrorWalker(StreamingFieldWalker.Layout layout, Fields fields,
                                 StreamedAnswer.StreamedErrors errors) {
        this.fields = fields;
        this.errors = errors;
        this.walker = new StreamingFieldWalker(layout, new StreamingFieldWalker.Visitor() {
            @Override
            public void number(String path, long value) {
                numberField(path, value);
            }

            @Override
            public void bytes(String path, byte[] value) {
                topicField(path, value);
            }
        });
    }

    /** Walks the next piece's readable bytes (its indices unchanged). */
    public void accept(ByteBuf piece) {
        walker.accept(piece);
    }

    /** True if the whole response was read (and not found malformed). */
    public boolean complete() {
        return walker.finished() && !walker.broken();
    }

    private void numberField(String path, long value) {
        if (path.equals(fields.partition())) {
            partition = (int) value;
        } else if (path.equals(fields.error())) {
            errors.partition(topicName, topicId, partition, (short) value);
        } else if (path.equals(fields.wholeError()) && value != 0) {
            errors.whole((short) value);
        }
    }

    private void topicField(String path, byte[] value) {
        if (path.equals(fields.topicId())) {
            ByteBuffer id = ByteBuffer.wrap(value);
            topicId = new Uuid(id.getLong(), id.getLong());
        } else {
            topicName = value == null ? "" : new String(value, StandardCharsets.UTF_8);
        }
    }
}
