package io.leasehold.proxy.dispatch;

import io.leasehold.proxy.admin.ProxyMetrics;
import io.leasehold.proxy.backend.BackendOutcomeUnknownException;
import io.leasehold.proxy.backend.Failures;
import io.leasehold.proxy.exchange.OutgoingRequest;
import io.leasehold.proxy.owners.OwnerLookup;
import io.leasehold.proxy.protocol.ErrorResponder;
import io.leasehold.proxy.protocol.MalformedRequestException;
import io.leasehold.proxy.protocol.RequestFrame;
import io.leasehold.proxy.request.ClientContext;
import io.leasehold.proxy.versions.VersionBridge;
import io.leasehold.routing.snapshot.BrokerAddress;
import io.netty.buffer.ByteBuf;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.protocol.Errors;

/**
 * Forwards requests that no broker owns (admin, InitProducerId, ...) to any live broker,
 * spreading them over brokers. Every request fails over to the next broker when one cannot be
 * reached; idempotent reads also fail over when a broker does not answer within
 * {@code backends.controlRequestTimeout}. The client's bytes go out unchanged apart from the
 * correlation id, unless the backends do not support the client's version: then the request goes
 * out in the version the {@link VersionBridge} picks and the answer is turned back into the
 * client's version before {@code transform} sees it.
 */
final class AnyBrokerForwarder {
    private final OwnerLookup router;
    private final ProxyMetrics metrics;
    private final AtomicInteger spread = new AtomicInteger();
    private final Supplier<VersionBridge> bridges;

    AnyBrokerForwarder(OwnerLookup router, ProxyMetrics metrics, Supplier<VersionBridge> bridges) {
        this.router = router;
        this.metrics = metrics;
        this.bridges = bridges;
    }

    /**
     * Forwards and returns the broker's response bytes as they are.
     *
     * @param read true if the request only reads, so asking another broker after a timeout is safe
     */
    CompletableFuture<ByteBuf> forward(RequestFrame frame, ClientContext client, boolean read)
            throws MalformedRequestException {
        return forward(frame, client, read, UnaryOperator.identity());
    }

    /**
     * Forwards, then lets {@code transform} replace the response frame (it takes ownership of
     * the frame it is given).
     */
    CompletableFuture<ByteBuf> forward(RequestFrame frame, ClientContext client, boolean read,
                                       UnaryOperator<ByteBuf> transform) throws MalformedRequestException {
        OutgoingRequest outgoing;
        try {
            outgoing = OutgoingRequest.prepare(client.alloc(), frame, null, bridges.get());
        } catch (UnsupportedVersionException e) {
            return VersionBridge.refuse(client.alloc(), frame, e);
        }
        List<BrokerAddress> brokers = router.anyBrokerOrder(spread.getAndIncrement());
        CompletableFuture<ByteBuf> sent = read ? client.backends().sendToAny(brokers, outgoing::retained)
                : client.backends().sendToFirstReachable(brokers, outgoing::retained);
        return sent.handle((response, error) -> {
            try {
                if (error != null) {
                    metrics.backendRequestFailed(frame.apiKey(), Failures.reason(error));
                    Throwable cause = Failures.unwrap(error);
                    Errors code = cause instanceof BackendOutcomeUnknownException unknown && unknown.timedOut()
                            ? Errors.REQUEST_TIMED_OUT : Errors.NETWORK_EXCEPTION;
                    return ErrorResponder.respond(client.alloc(), frame, code);
                }
                return transform.apply(outgoing.toClient(client.alloc(), response));
            } finally {
                outgoing.release();
                frame.release();
            }
        });
    }
}
