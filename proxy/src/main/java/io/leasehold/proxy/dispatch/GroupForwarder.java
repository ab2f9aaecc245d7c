package io.leasehold.proxy.dispatch;

import io.github.resilience4j.retry.Retry;
import io.leasehold.proxy.admin.ProxyMetrics;
import io.leasehold.proxy.backend.BackendUnreachableException;
import io.leasehold.proxy.backend.Failures;
import io.leasehold.proxy.exchange.OutgoingRequest;
import io.leasehold.proxy.exchange.RetryFactory;
import io.leasehold.proxy.owners.OwnerLookup;
import io.leasehold.proxy.owners.Target;
import io.leasehold.proxy.protocol.ErrorResponder;
import io.leasehold.proxy.protocol.KafkaMessages;
import io.leasehold.proxy.protocol.MalformedRequestException;
import io.leasehold.proxy.protocol.RequestFrame;
import io.leasehold.proxy.protocol.SingleGroupRequests;
import io.leasehold.proxy.request.ClientContext;
import io.leasehold.proxy.versions.VersionBridge;
import io.leasehold.routing.snapshot.RoutingSnapshot;
import io.netty.buffer.ByteBuf;
import io.netty.util.Attribute;
import io.netty.util.AttributeKey;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;

/**
 * Sends consumer-group requests to the broker that holds the group's lease, or, if nobody
 * does, to the broker every proxy picks for that group. A NOT_COORDINATOR answer drops that
 * route and the request goes again (with backoff) to the next choice. A REQUEST_TIMED_OUT
 * answer (a KafScale broker's word for "etcd is briefly unreachable, nothing done") goes again
 * to the same choice; if it persists past the budget the client gets COORDINATOR_NOT_AVAILABLE,
 * which every client's group code retries, whereas kafka-clients fails JoinGroup, SyncGroup and
 * Heartbeat on REQUEST_TIMED_OUT. Each request waits as long as {@link GroupDeadlines} allows; a
 * request the broker leaves unanswered that long is answered COORDINATOR_NOT_AVAILABLE too, so the
 * client looks its coordinator up again. The client's bytes and the broker's answer are forwarded
 * unchanged apart from the correlation id, unless the backends do not support the client's version:
 * then the request goes out in the version the {@link VersionBridge} picks and the answer is turned
 * back into the client's version. A connection's OffsetCommits for one group go out one after the
 * other, retries included ({@link CommitOrder}), so a retried commit never lands after a later one.
 */
public final class GroupForwarder {
    private record Attempt(ByteBuf response, boolean rejected, long deadlineNanos) {
        boolean worthRetrying() {
            return rejected && System.nanoTime() - deadlineNanos < 0;
        }
    }

    /**
     * A group whose route keeps being refused is answered COORDINATOR_NOT_AVAILABLE after this
     * many attempts even within its deadline (which can be a rebalance long): the client then
     * looks its coordinator up again.
     */
    private static final int MAX_ATTEMPTS = 10;
    /** Even a retry that starts at the deadline gets this long for its answer. */
    private static final long MIN_WAIT_NANOS = 100_000_000L;
    private static final AttributeKey<CommitOrder> COMMIT_ORDER = AttributeKey.valueOf(CommitOrder.class.getName());

    private final OwnerLookup router;
    private final ProxyMetrics metrics;
    private final Retry retry;
    private final GroupDeadlines deadlines;
    private final Supplier<VersionBridge> bridges;

    GroupForwarder(OwnerLookup router, RetryFactory retries, ProxyMetrics metrics, GroupDeadlines deadlines,
                Supplier<VersionBridge> bridges) {
        this.router = router;
        this.bridges = bridges;
        this.metrics = metrics;
        this.retry = retries.<Attempt>create("groups", Attempt::worthRetrying, MAX_ATTEMPTS);
        this.deadlines = deadlines;
    }

    CompletableFuture<ByteBuf> route(RequestFrame frame, ClientContext client) throws MalformedRequestException {
        ApiMessage body = frame.decodeBody();
        String group = groupOf(body, frame);
        long deadline = System.nanoTime() + deadlines.of(body).toNanos();
        OutgoingRequest outgoing;
        try {
            outgoing = OutgoingRequest.prepare(client.alloc(), frame, body, bridges.get());
        } catch (UnsupportedVersionException e) {
            return VersionBridge.refuse(client.alloc(), frame, e);
        }
        AtomicInteger attemptCount = new AtomicInteger();
        Supplier<CompletableFuture<Attempt>> attempts = () -> retry.<Attempt>executeCompletionStage(
                client.backends().eventLoop(), () -> {
                    int attempt = attemptCount.getAndIncrement();
                    if (attempt > 0) {
                        metrics.retried(frame.apiKey());
                    }
                    return attempt(frame, outgoing, client, group, attempt, deadline);
                }).toCompletableFuture();
        CompletableFuture<Attempt> done = body instanceof OffsetCommitRequestData
                ? commitOrder(client).after(group, attempts) : attempts.get();
        return done.handle((attempt, error) -> {
            try {
                if (error != null || attempt.response() == null) {
                    return ErrorResponder.respond(client.alloc(), frame, Errors.COORDINATOR_NOT_AVAILABLE);
                }
                return outgoing.toClient(client.alloc(), attempt.response());
            } finally {
                outgoing.release();
                frame.release();
            }
        });
    }

    private CompletableFuture<Attempt> attempt(RequestFrame frame, OutgoingRequest outgoing, ClientContext client,
                                               String group, int attempt, long deadline) {
        RoutingSnapshot snapshot = router.snapshot();
        Target target = router.group(snapshot, group, attempt);
        if (target == null) {
            return CompletableFuture.completedFuture(new Attempt(null, true, deadline));
        }
        Duration remaining = Duration.ofNanos(Math.max(deadline - System.nanoTime(), MIN_WAIT_NANOS));
        return client.backends().send(target.broker(), outgoing.retained(), remaining).handle((response, error) -> {
            if (error != null) {
                if (Failures.unwrap(error) instanceof BackendUnreachableException) {
                    return new Attempt(null, true, deadline);
                }
                throw new IllegalStateException(Failures.unwrap(error));
            }
            AbstractResponse parsed;
            try {
                parsed = AbstractResponse.parseResponse(frame.apiKey(), new ByteBufferAccessor(
                        KafkaMessages.responseBody(response, frame.apiKey(), outgoing.version())), outgoing.version());
            } catch (RuntimeException e) {
                response.release();
                throw e;
            }
            if (parsed.errorCounts().containsKey(Errors.REQUEST_TIMED_OUT)) {
                response.release();
                return new Attempt(null, true, deadline);
            }
            if (!parsed.errorCounts().containsKey(Errors.NOT_COORDINATOR)) {
                return new Attempt(response, false, deadline);
            }
            metrics.notCoordinatorRejection();
            if (target.ownership() != null) {
                router.routes().invalidateGroup(group, target.ownership());
            }
            Attempt rejected = new Attempt(response, true, deadline);
            if (rejected.worthRetrying()) {
                response.release();
                return new Attempt(null, true, deadline);
            }
            return rejected;
        });
    }

    /**
     * The connection's commit order, made on its first commit and gone with its channel. A
     * context without a channel (unit tests of other classes) keeps no order between requests.
     */
    private static CommitOrder commitOrder(ClientContext client) {
        if (client.channel() == null) {
            return new CommitOrder();
        }
        Attribute<CommitOrder> attribute = client.channel().attr(COMMIT_ORDER);
        CommitOrder existing = attribute.setIfAbsent(new CommitOrder());
        return existing != null ? existing : attribute.get();
    }

    /** The group a single-group request is about. */
    static String groupOf(ApiMessage body, RequestFrame frame) throws MalformedRequestException {
        String group = SingleGroupRequests.groupOf(body);
        if (group == null) {
            throw new MalformedRequestException("malformed", frame + " names no consumer group", null);
        }
        return group;
    }
}
