package io.leasehold.proxy.apis;

import io.leasehold.proxy.exchange.PartitionErrorWalker;
import io.leasehold.proxy.exchange.RejectionScan;
import io.leasehold.proxy.exchange.StreamedAnswer;
import io.netty.buffer.ByteBuf;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.types.Schema;

/**
 * Finds out whether a Produce response rejects any partition by walking its error codes, laid
 * out from the generated schemas; nothing in the response is changed.
 */
final class ProduceRejectionScan implements RejectionScan {
    /** Produce has no response-level error code: the last path names a field no version has. */
    private static final PartitionErrorWalker.Fields FIELDS = new PartitionErrorWalker.Fields("responses.name",
            "responses.topic_id", "responses.partition_responses.index", "responses.partition_responses.error_code",
            "error_code");

    private final PartitionErrorWalker.Layouts layouts = new PartitionErrorWalker.Layouts(
            version -> ProduceResponseData.SCHEMAS[version] == null ? null
                    : new Schema[] {ResponseHeaderData.SCHEMAS[ApiKeys.PRODUCE.responseHeaderVersion((short) version)],
                            ProduceResponseData.SCHEMAS[version]},
            ProduceResponseData.SCHEMAS.length, FIELDS, Set.of());

    @Override
    public boolean rejectsNone(ByteBuf response, short version, Errors rejection) {
        Found found = new Found(rejection.code());
        PartitionErrorWalker walker = layouts.walker(version, found);
        walker.accept(response);
        return walker.complete() && !found.rejected;
    }

    /** Notes whether any partition, or the whole response, carried the rejection. */
    private static final class Found implements StreamedAnswer.StreamedErrors {
        private final short rejection;
        private boolean rejected;

        Found(short rejection) {
            this.rejection = rejection;
        }

        @Override
        public void partition(String topicName, Uuid topicId, int partition, short error) {
            rejected |= error == rejection;
        }

        @Override
        public void whole(short error) {
            rejected |= error == rejection;
        }
    }
}
