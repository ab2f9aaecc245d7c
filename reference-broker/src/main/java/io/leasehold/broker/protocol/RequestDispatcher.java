package io.leasehold.broker.protocol;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decodes a request frame with kafka-clients' classes, hands it to the API's handler and
 * encodes the answer. Requests that cannot be answered in the protocol (unreadable header, an
 * API or version this broker does not serve, a malformed body) fail with
 * {@link ProtocolViolation}, and the connection is closed, as Kafka brokers do.
 */
public final class RequestDispatcher {

    private static final Logger LOG = LoggerFactory.getLogger(RequestDispatcher.class);

    private final SupportedApis apis;

    public RequestDispatcher(SupportedApis apis) {
        this.apis = apis;
    }

    /** A request the broker cannot answer; the connection must be closed. */
    public static final class ProtocolViolation extends RuntimeException {
        public ProtocolViolation(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** @return the encoded response, or a future of null when the request gets none */
    public CompletableFuture<ByteBuf> dispatch(ByteBuffer frame, String clientHost) {
        RequestHeader header;
        try {
            header = RequestHeader.parse(frame);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(new ProtocolViolation(
                    "unreadable request header from " + clientHost + ": " + e.getMessage(), e));
        }
        ApiKeys api = header.apiKey();
        short version = header.apiVersion();
        SupportedApis.Served served = apis.get(api);
        if (served == null || !served.supports(version)) {
            if (api == ApiKeys.API_VERSIONS) {
                return CompletableFuture.completedFuture(ResponseEncoder.encode(api, (short) 0, header.correlationId(),
                        apis.apiVersionsResponse(Errors.UNSUPPORTED_VERSION.code())));
            }
            String range = served == null ? "not served" : "served in versions " + served.min() + ".." + served.max();
            return CompletableFuture.failedFuture(new ProtocolViolation(api + " v" + version + " from client '"
                    + header.clientId() + "' at " + clientHost + ": " + range + " (see ApiVersions)", null));
        }
        AbstractRequest request;
        try {
            request = AbstractRequest.parseRequest(api, version, new ByteBufferAccessor(frame)).request;
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(new ProtocolViolation("malformed " + api + " v" + version
                    + " body from client '" + header.clientId() + "' at " + clientHost + ": " + e.getMessage(), e));
        }
        KafkaRequest kafkaRequest = new KafkaRequest(header, request, clientHost);
        CompletableFuture<ApiMessage> response;
        try {
            response = served.handler().handle(kafkaRequest);
        } catch (RuntimeException e) {
            response = CompletableFuture.failedFuture(e);
        }
        return response.handle((body, error) -> {
            if (error != null) {
                return errorResponse(kafkaRequest, unwrap(error));
            }
            return body == null ? null : ResponseEncoder.encode(api, version, header.correlationId(), body);
        });
    }

    private static ByteBuf errorResponse(KafkaRequest request, Throwable error) {
        if (!(error instanceof ApiException)) {
            LOG.warn("{} v{} from client '{}' failed", request.apiKey(), request.version(), request.clientId(), error);
        }
        ApiMessage body = request.request().getErrorResponse(error).data();
        return ResponseEncoder.encode(request.apiKey(), request.version(), request.header().correlationId(), body);
    }

    private static Throwable unwrap(Throwable error) {
        Throwable cause = error;
        while (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
