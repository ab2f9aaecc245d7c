package io.leasehold.proxy.apis;

import io.leasehold.proxy.backend.ResponseInspector;
import io.leasehold.proxy.exchange.PartitionErrorWalker;
import io.netty.buffer.ByteBuf;
import java.util.Set;
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
    private static final PartitionErrorWalker.Fields FIELDS = new PartitionErrorWalker.Fields("responses.topic",
            "responses.topic_id", "responses.partitions.partition_index", "responses.partitions.error_code",
            "error_code");
    private static final Schema LENGTH_PREFIX = new Schema(new Field("frame_length", Type.INT32));

    private final PartitionErrorWalker walker;

    /** @param walker a walk of one response laid out by {@link #layouts()} */
    FetchStreamInspector(PartitionErrorWalker walker) {
        this.walker = walker;
    }

    /** Every Fetch version's streamed response (length prefix, header, body), compiled once. */
    static PartitionErrorWalker.Layouts layouts() {
        return new PartitionErrorWalker.Layouts(version -> FetchResponseData.SCHEMAS[version] == null ? null
                : new Schema[] {LENGTH_PREFIX, ResponseHeaderData.SCHEMAS[ApiKeys.FETCH.responseHeaderVersion(
                        (short) version)], FetchResponseData.SCHEMAS[version]},
                FetchResponseData.SCHEMAS.length, FIELDS, BROKER_FIELDS);
    }

    @Override
    public void inspect(ByteBuf piece) {
        walker.accept(piece);
    }

    /** True if the whole response was read (and not found malformed). */
    boolean complete() {
        return walker.complete();
    }
}
