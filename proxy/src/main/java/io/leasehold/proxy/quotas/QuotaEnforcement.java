package io.leasehold.proxy.quotas;

import io.leasehold.proxy.backend.ResponseStream;
import io.leasehold.proxy.protocol.KafkaMessages;
import io.leasehold.proxy.protocol.RequestFrame;
import io.leasehold.proxy.request.ClientContext;
import io.leasehold.proxy.request.RequestHandler;
import io.netty.buffer.ByteBuf;
import io.netty.util.ReferenceCounted;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Holds clients to their byte-rate quotas as a Kafka broker does (KIP-219), in front of the
 * dispatcher and behind SASL, so the user is known: a Produce counts its request bytes before
 * it is forwarded, a Fetch the bytes of its answer. A client over its quota gets its answer at
 * once with {@code throttle_time_ms} set (the larger of the broker's and the proxy's), and then
 * its connection is not read for that time ({@link ClientContext#throttleFor}). Where the answer
 * has no such field (acks=0 produce, a fetch answer streamed through unread) the connection is
 * only muted. Requests of other APIs pass untouched. The user is the connection's principal name,
 * {@code ANONYMOUS} without authentication, as Kafka's.
 */
public final class QuotaEnforcement implements RequestHandler {
    /** The first Produce and Fetch versions with a {@code throttle_time_ms} field. */
    private static final short FIRST_VERSION_WITH_THROTTLE_TIME = 1;

    private final RequestHandler next;
    private final ClientQuotas quotas;

    public QuotaEnforcement(RequestHandler next, ClientQuotas quotas) {
        this.next = next;
        this.quotas = quotas;
    }

    @Override
    public CompletableFuture<ReferenceCounted> handle(RequestFrame request, ClientContext client) {
        ApiKeys api = request.apiKey();
        if (api == ApiKeys.PRODUCE) {
            String user = client.principal().getName();
            long throttleMs = quotas.record(QuotaType.PRODUCER_BYTE_RATE, user, clientId(request),
                    request.body().remaining());
            CompletableFuture<ReferenceCounted> answer = next.handle(request, client);
            return throttleMs == 0 ? answer
                    : answer.thenApply(response -> throttled(response, api, request.version(), throttleMs, client));
        }
        if (api == ApiKeys.FETCH) {
            String user = client.principal().getName();
            String clientId = clientId(request);
            short version = request.version();
            return next.handle(request, client).thenApply(response -> {
                long throttleMs = quotas.record(QuotaType.CONSUMER_BYTE_RATE, user, clientId, bytes(response));
                return throttleMs == 0 ? response : throttled(response, api, version, throttleMs, client);
            });
        }
        return next.handle(request, client);
    }

    private static String clientId(RequestFrame request) {
        String clientId = request.header().clientId();
        return clientId == null ? "" : clientId;
    }

    private static long bytes(ReferenceCounted response) {
        if (response instanceof ResponseStream stream) {
            return stream.length();
        }
        return response instanceof ByteBuf frame ? frame.readableBytes() : 0;
    }

    /** The answer with the throttle time in it where it has the field; the connection muted either way. */
    private static ReferenceCounted throttled(ReferenceCounted response, ApiKeys api, short version, long throttleMs,
                                              ClientContext client) {
        client.throttleFor(throttleMs);
        if (!(response instanceof ByteBuf frame) || version < FIRST_VERSION_WITH_THROTTLE_TIME) {
            return response;
        }
        int throttle = (int) Math.min(Integer.MAX_VALUE, throttleMs);
        try {
            ApiMessage body = KafkaMessages.decodeResponse(frame, api, version);
            if (body instanceof ProduceResponseData produce) {
                produce.setThrottleTimeMs(Math.max(produce.throttleTimeMs(), throttle));
            } else {
                FetchResponseData fetch = (FetchResponseData) body;
                fetch.setThrottleTimeMs(Math.max(fetch.throttleTimeMs(), throttle));
            }
            return KafkaMessages.encodeResponse(client.alloc(), api, version,
                    KafkaMessages.responseCorrelationId(frame), body);
        } finally {
            frame.release();
        }
    }
}
