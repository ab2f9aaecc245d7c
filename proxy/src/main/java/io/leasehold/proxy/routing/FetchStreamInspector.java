package io.leasehold.proxy.routing;

import io.leasehold.proxy.backend.ResponseInspector;
import io.leasehold.proxy.protocol.StreamingFieldWalker;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.types.Field;
import org.apache.kafka.common.protocol.types.Schema;
import org.apache.kafka.common.protocol.types.Type;

/**
 * Reads a streamed single-owner Fetch response as it passes: reports each partition's error
 * code (so a rejection invalidates the route as on the merged path), and overwrites the backend
 * broker ids clients must not see (PreferredReadReplica, CurrentLeader) with -1, as merged
 * responses carry them.
 */
final class FetchStreamInspector implements ResponseInspector {
    /** Fields naming a backend broker (and the leader epoch that goes with one). */
    static final Set<String> BROKER_FIELDS = Set.of("responses.partitions.preferred_read_replica",
            "responses.partitions.current_leader.leader_id", "responses.partitions.current_leader.leader_epoch");
    private static final String TOPIC_NAME = "responses.topic";
    private static final String TOPIC_ID = "responses.topic_id";
    private static final String PARTITION = "responses.partitions.partition_index";
    private static final String PARTITION_ERROR = "responses.partitions.error_code";
    private static final String TOP_LEVEL_ERROR = "error_code";
    private static final Schema LENGTH_PREFIX = new Schema(new Field("frame_length", Type.INT32));

    private final StreamingFieldWalker walker;
    private String topicName = "";
    private Uuid topicId = Uuid.ZERO_UUID;
    private int partition;

    /** @param version the Fetch version the response is in */
    FetchStreamInspector(short version, PartitionedApi.StreamedErrors errors) {
        Schema[] parts = {LENGTH_PREFIX, ResponseHeaderData.SCHEMAS[ApiKeys.FETCH.responseHeaderVersion(version)],
            FetchResponseData.SCHEMAS[version]};
        this.walker = new StreamingFieldWalker(parts, Set.of(TOPIC_NAME, TOPIC_ID), BROKER_FIELDS,
                new StreamingFieldWalker.Visitor() {
                    @Override
                    public void number(String path, long value) {
                        switch (path) {
                            case PARTITION -> partition = (int) value;
                            case PARTITION_ERROR -> errors.partition(topicName, topicId, partition, (short) value);
                            case TOP_LEVEL_ERROR -> {
                                if (value != 0) {
                                    errors.whole((short) value);
                                }
                            }
                            default -> { }
                        }
                    }

                    @Override
                    public void bytes(String path, byte[] value) {
                        if (TOPIC_ID.equals(path)) {
                            ByteBuffer id = ByteBuffer.wrap(value);
                            topicId = new Uuid(id.getLong(), id.getLong());
                        } else {
                            topicName = value == null ? "" : new String(value, StandardCharsets.UTF_8);
                        }
                    }
                });
    }

    @Override
    public void inspect(ByteBuf piece) {
        walker.accept(piece);
    }

    /** True if the whole response was read (and not found malformed). */
    boolean complete() {
        return walker.finished() && !walker.broken();
    }
}
