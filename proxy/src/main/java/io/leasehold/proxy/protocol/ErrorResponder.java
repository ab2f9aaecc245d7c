package io.leasehold.proxy.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;

/**
 * Builds the protocol's own error response for any request (every partition, group or topic
 * of the request carries the error), using kafka-clients' per-API error response logic.
 */
public final class ErrorResponder {
    private ErrorResponder() {
    }

    public static ByteBuf respond(ByteBufAllocator alloc, RequestFrame frame, Errors error) {
        return respond(alloc, frame, error.exception());
    }

    /** The error response for {@code error}, with its message where the API carries one. */
    public static ByteBuf respond(ByteBufAllocator alloc, RequestFrame frame, ApiException error) {
        AbstractRequest request = AbstractRequest.parseRequest(frame.apiKey(), frame.version(),
                new ByteBufferAccessor(frame.body())).request;
        AbstractResponse response = request.getErrorResponse(0, error);
        return KafkaMessages.encodeResponse(alloc, frame.apiKey(), frame.version(), frame.correlationId(),
                response.data());
    }
}
