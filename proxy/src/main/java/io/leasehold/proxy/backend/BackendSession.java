package io.leasehold.proxy.backend;

import io.leasehold.routing.snapshot.BrokerAddress;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.EventLoop;
import io.netty.util.ReferenceCounted;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * The backend connections used on behalf of one client connection (or of the proxy itself):
 * at most one per broker, opened lazily on the session's event loop. A broker handles one
 * request per connection at a time, so giving each client its own connections keeps one slow
 * client from delaying all others, and keeps each client's requests to a broker in order, those
 * sent while the connection is still being opened included.
 */
public final class BackendSession implements AutoCloseable {
    private final BackendConnector connector;
    private final EventLoop loop;
    private final BackendListener listener;
    private final Map<String, OrderedConnection> connections = new HashMap<>();
    private final SilentBrokers silentBrokers;
    private boolean closed;
    private boolean autoRead = true;
    private boolean lastWritable = true;

    BackendSession(BackendConnector connector, EventLoop loop, BackendListener listener) {
        this.connector = connector;
        this.loop = loop;
        this.listener = listener;
        this.silentBrokers = new SilentBrokers(loop);
    }

    /** The brokers that left a request of this session unanswered past the owner deadline. */
    public SilentBrokers silentBrokers() {
        return silentBrokers;
    }

    /** The event loop all of this session's connections run on. */
    public EventLoop eventLoop() {
        return loop;
    }

    /**
     * Sends {@code request} (ownership taken; its correlation id is overwritten) to {@code broker},
     * waiting up to {@code backends.requestTimeout} for the answer.
     * Fails with {@link BackendUnreachableException} if it was never written, or
     * {@link BackendOutcomeUnknownException} if it was written but not answered.
     */
    public CompletableFuture<ByteBuf> send(BrokerAddress broker, ByteBuf request) {
        return send(broker, request, connector.requestTimeout());
    }

    /** Like {@link #send(BrokerAddress, ByteBuf)}, but waits up to {@code deadline} for the answer. */
    public CompletableFuture<ByteBuf> send(BrokerAddress broker, ByteBuf request, Duration deadline) {
        return send(broker, request, (connection, bytes) -> connection.send(bytes, deadline));
    }

    /**
     * Sends an idempotent read to {@code broker}, waiting up to {@code backends.controlRequestTimeout}
     * for the answer (for reads the proxy asks of every broker, where a hung one must not hold up
     * the answer for long).
     */
    public CompletableFuture<ByteBuf> sendRead(BrokerAddress broker, ByteBuf request) {
        return send(broker, request, connector.controlRequestTimeout());
    }

    /**
     * Like {@link #send}, but completes when the response's first bytes arrive, with a stream
     * that forwards the rest as it comes (for large responses the proxy passes on without
     * decoding); {@code inspector} sees each piece first.
     */
    public CompletableFuture<ResponseStream> sendStreaming(BrokerAddress broker, ByteBuf request,
                                                           ResponseInspector inspector) {
        Duration deadline = connector.requestTimeout();
        return send(broker, request, (connection, bytes) -> connection.sendStreaming(bytes, deadline, inspector));
    }

    /**
     * Completes once no request to {@code broker} on this session's connection awaits its answer
     * (at once if there is no connection): a request sent before then waits behind the earlier
     * ones, since a broker answers a connection's requests one at a time. Completes on the
     * session's event loop.
     */
    public CompletableFuture<Void> whenIdle(BrokerAddress broker) {
        if (!loop.inEventLoop()) {
            return CompletableFuture.supplyAsync(() -> whenIdle(broker), loop).thenCompose(f -> f);
        }
        OrderedConnection connection = connections.get(key(broker));
        if (connection == null) {
            return CompletableFuture.completedFuture(null);
        }
        return connection.opened().handle((c, error) -> error != null ? CompletableFuture.<Void>completedFuture(null)
                : c.whenIdle()).thenCompose(f -> f);
    }

    private <R extends ReferenceCounted> CompletableFuture<R> send(
            BrokerAddress broker, ByteBuf request, BiFunction<BackendConnection, ByteBuf, CompletableFuture<R>> how) {
        if (!loop.inEventLoop()) {
            CompletableFuture<R> result = new CompletableFuture<>();
            loop.execute(() -> send(broker, request, how).whenComplete((r, e) -> {
                if (e != null) {
                    result.completeExceptionally(e);
                } else if (!result.complete(r)) {
                    r.release();
                }
            }));
            return result;
        }
        return connection(broker).nextTurn().handle((connection, error) -> {
            if (error != null) {
                request.release();
                return CompletableFuture.<R>failedFuture(error);
            }
            return how.apply(connection, request);
        }).thenCompose(f -> f);
    }

    /**
     * Sends an idempotent read (Metadata, ApiVersions, describe-style admin requests) to the
     * first of {@code candidates} that answers. Each broker gets {@code backends.controlRequestTimeout};
     * one that cannot be reached, drops the connection or does not answer in time is skipped, so
     * one hung broker delays the answer by that timeout instead of failing it. A request that
     * cannot be encoded fails the returned future.
     */
    public CompletableFuture<ByteBuf> sendToAny(List<BrokerAddress> candidates, Supplier<ByteBuf> request) {
        return sendToAny(candidates, 0, request, connector.controlRequestTimeout(), true, null);
    }

    /**
     * Sends a request that must not be repeated (it may change state) to the first of
     * {@code candidates} that accepts a connection; only a broker that cannot be reached is
     * skipped, since then the request never left the proxy.
     */
    public CompletableFuture<ByteBuf> sendToFirstReachable(List<BrokerAddress> candidates, Supplier<ByteBuf> request) {
        return sendToAny(candidates, 0, request, connector.requestTimeout(), false, null);
    }

    private CompletableFuture<ByteBuf> sendToAny(List<BrokerAddress> candidates, int index, Supplier<ByteBuf> request,
                                                 Duration deadline, boolean idempotent, Throwable lastError) {
        if (index >= candidates.size()) {
            return CompletableFuture.failedFuture(new BackendUnreachableException(
                    "no broker answered among " + candidates.size() + " candidates"
                            + (lastError == null ? "" : ": " + lastError.getMessage()), lastError));
        }
        ByteBuf encoded;
        try {
            encoded = request.get();
        } catch (RuntimeException e) {
            // A request that cannot be written (e.g. a field its version lacks) fails its future:
            // callers that cache or share the future must see it end, not an exception thrown past it.
            return CompletableFuture.failedFuture(e);
        }
        return send(candidates.get(index), encoded, deadline).handle((response, error) -> {
            Throwable cause = Failures.unwrap(error);
            boolean skip = cause instanceof BackendUnreachableException
                    || idempotent && cause instanceof BackendOutcomeUnknownException;
            if (skip) {
                return sendToAny(candidates, index + 1, request, deadline, idempotent, cause);
            }
            return error == null ? CompletableFuture.completedFuture(response)
                    : CompletableFuture.<ByteBuf>failedFuture(cause);
        }).thenCompose(f -> f);
    }

    /** Stops or resumes reading responses from every broker (client too slow to take them). */
    public void setAutoRead(boolean enabled) {
        loop.execute(() -> {
            autoRead = enabled;
            connections.values().forEach(f -> f.opened().thenAccept(c -> c.channel().config().setAutoRead(enabled)));
        });
    }

    /** Closes every connection; pending requests fail as outcome unknown. */
    @Override
    public void close() {
        loop.execute(() -> {
            closed = true;
            List<OrderedConnection> all = new ArrayList<>(connections.values());
            connections.clear();
            all.forEach(f -> f.opened().thenAccept(c -> c.channel().close()));
        });
    }

    private OrderedConnection connection(BrokerAddress broker) {
        String key = key(broker);
        OrderedConnection existing = connections.get(key);
        if (existing != null && !retired(existing.opened())) {
            return existing;
        }
        OrderedConnection created = new OrderedConnection();
        if (closed) {
            created.fail(new BackendUnreachableException("backend session closed", null));
            return created;
        }
        connections.put(key, created);
        String name = broker.id() + "@" + key;
        BackendConnection connection = new BackendConnection(name, broker.id(), connector.metrics());
        ChannelFuture connect = connector.connect(loop, broker.host(), broker.port(), connection,
                this::writabilityChanged);
        connect.addListener(f -> {
            if (f.isSuccess()) {
                connect.channel().config().setAutoRead(autoRead);
                connect.channel().closeFuture().addListener(c -> loop.execute(() -> connections.remove(key, created)));
                created.open(connection);
            } else {
                connections.remove(key, created);
                created.fail(new BackendUnreachableException(
                        "cannot connect to broker " + name + ": " + f.cause().getMessage(), f.cause()));
            }
        });
        return created;
    }

    /** Whether {@code connection} is open but retiring: it finishes its requests, new ones need a fresh one. */
    private static boolean retired(CompletableFuture<BackendConnection> connection) {
        return connection.isDone() && !connection.isCompletedExceptionally() && connection.join().retired();
    }

    private static String key(BrokerAddress broker) {
        return broker.host() + ":" + broker.port();
    }

    private void writabilityChanged() {
        boolean writable = true;
        for (OrderedConnection f : connections.values()) {
            BackendConnection c = f.opened().getNow(null);
            if (c != null && c.channel().isActive() && !c.channel().isWritable()) {
                writable = false;
            }
        }
        if (writable != lastWritable) {
            lastWritable = writable;
            listener.writabilityChanged(writable);
        }
    }
}
